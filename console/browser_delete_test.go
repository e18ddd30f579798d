package console

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/browser"
	"github.com/tickwork/tickwork/store"
)

// deleteInBrowser deletes the ended job at jobPath (f.failed) by clicking,
// logged in: the form asks for its box to be ticked, the server refuses
// a delete without it, and a confirmed one leaves the queue's job list
// showing and the row gone.
func deleteInBrowser(t *testing.T, ctx context.Context, f *fixture, open func(path, waitFor string), jobPath string) {
	t.Helper()
	open(jobPath, "#delete")
	if browser.Eval[bool](t, ctx, `document.querySelector("#delete").form.checkValidity()`) {
		t.Error("the delete form submits without its box ticked")
	}
	browser.Eval[bool](t, ctx, `(() => { document.querySelector("#confirm-delete").required = false; return true; })()`)
	browser.Do(t, ctx, "click delete without confirming", chromedp.Click(chromedp.CSS("#delete")), chromedp.WaitVisible(chromedp.CSS("#error")))
	if msg := browser.Eval[string](t, ctx, `document.getElementById("error").textContent`); !strings.Contains(msg, "tick the box") {
		t.Errorf("refusal of an unconfirmed delete says %q", msg)
	}
	if !f.exists(t, f.failed) {
		t.Fatal("an unconfirmed delete deleted the job")
	}

	open(jobPath, "#delete")
	browser.Do(t, ctx, "confirm and delete", chromedp.Click(chromedp.CSS("#confirm-delete")), chromedp.Click(chromedp.CSS("#delete")),
		chromedp.WaitVisible(chromedp.CSS("#jobs")))
	if f.exists(t, f.failed) {
		t.Fatal("the confirmed delete left the job")
	}
	if url := browser.Eval[string](t, ctx, `location.pathname + location.search`); url != "/jobs?queue=webhook" {
		t.Errorf("after the delete the browser shows %s, want the job list of its queue", url)
	}
}

// exists reports whether job id has a row.
func (f *fixture) exists(t *testing.T, id ulid.ULID) bool {
	t.Helper()
	err := f.st.InTx(t.Context(), func(tx store.Tx) error { _, err := tx.GetJob(t.Context(), id); return err })
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}
