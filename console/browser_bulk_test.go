package console

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tickwork/tickwork/internal/browser"
	"github.com/tickwork/tickwork/store"
)

// bulkInBrowser, logged in, asks the jobs page's bulk form to delete
// the running jobs: it shows their count first, will not submit the
// confirmation without its box ticked, and once confirmed refuses every
// running job, which stays.
func bulkInBrowser(t *testing.T, ctx context.Context, f *fixture, open func(path, waitFor string)) {
	t.Helper()
	n := f.runningJobs(t)
	open("/jobs?status=running", "#bulk")
	browser.Do(t, ctx, "count the running jobs to delete", chromedp.SetValue(chromedp.CSS(`#bulk select[name="action"]`), "delete"),
		chromedp.Click(chromedp.CSS("#bulk-submit")), chromedp.WaitVisible(chromedp.CSS("#confirm-bulk")))
	if got := browser.Eval[string](t, ctx, `document.getElementById("bulk-count").textContent`); !strings.Contains(got, fmt.Sprintf("%d jobs match", n)) {
		t.Errorf("bulk count says %q, want %d jobs", got, n)
	}
	if browser.Eval[bool](t, ctx, `document.querySelector("#bulk-confirm").form.checkValidity()`) {
		t.Error("the bulk confirmation submits without its box ticked")
	}
	browser.Do(t, ctx, "confirm the bulk delete", chromedp.Click(chromedp.CSS("#confirm-bulk")), chromedp.Click(chromedp.CSS("#bulk-confirm")),
		chromedp.WaitVisible(chromedp.CSS("#bulk-result")))
	if got := browser.Eval[string](t, ctx, `document.getElementById("bulk-result").textContent`); !strings.Contains(got, fmt.Sprintf("0 done, %d refused", n)) {
		t.Errorf("bulk result says %q, want all %d refused", got, n)
	}
	if st := f.job(t, f.running).Status; st != store.Running {
		t.Fatalf("a bulk delete left the running job %s", st)
	}
}
