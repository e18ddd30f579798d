package console

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tickwork/tickwork/internal/browser"
	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store"
)

const adminToken = "test-admin-token"

// TestConsoleInBrowser loads every page against real rows, then retries a
// failed job by clicking, after checking the click is refused without the
// CSRF token and without logging in, and that no page shows the webhook
// password. The overview's screenshot is docs/console.png.
func TestConsoleInBrowser(t *testing.T) {
	long.Test(t, "drives the console in Chromium")
	f := newFixture(t)
	srv := f.server(t, adminToken)
	ctx := browser.New(t)
	open := func(path, waitFor string) {
		t.Helper()
		browser.Do(t, ctx, "open "+path, chromedp.Navigate(srv.URL+path), chromedp.WaitVisible(chromedp.CSS(waitFor)))
		if html := browser.Eval[string](t, ctx, `document.documentElement.outerHTML`); strings.Contains(html, webhookSecret) {
			t.Errorf("%s shows the webhook password", path)
		}
	}
	count := func(sel string) int {
		t.Helper()
		return browser.Eval[int](t, ctx, `document.querySelectorAll(`+browser.JS(sel)+`).length`)
	}

	f.controlQueue(t, func(ctx context.Context, tx store.Tx) error { return tx.SetQueueLimit(ctx, "webhook", 2) })
	f.controlQueue(t, func(ctx context.Context, tx store.Tx) error { return tx.SetQueueRate(ctx, "webhook", 100, time.Minute) })
	f.controlQueue(t, func(ctx context.Context, tx store.Tx) error { return tx.PauseQueue(ctx, "reports") })
	open("/", "#throughput")
	if n := count("#queues tr[data-queue]"); n != 3 {
		t.Errorf("overview: %d queue rows, want 3", n)
	}
	if n := count("#queues button"); n != 0 {
		t.Errorf("overview: %d queue buttons before logging in, want none", n)
	}
	if limit := cell(t, ctx, "webhook", "td.limit"); limit != "2" {
		t.Errorf("overview: webhook's limit shows %q, want 2", limit)
	}
	if rate := cell(t, ctx, "webhook", "td.rate"); rate != "100/1m" {
		t.Errorf("overview: webhook's rate shows %q, want 100/1m", rate)
	}
	if shown := cell(t, ctx, "reports", "td.paused"); !strings.HasPrefix(shown, "paused for ") {
		t.Errorf("overview: reports shows as %q, want paused for …", shown)
	}
	if n := count("#line-completed, #line-failed"); n != 2 {
		t.Errorf("overview: %d chart lines, want 2", n)
	}
	browser.Screenshot(t, ctx, "console-overview.png", filepath.Join("..", "docs", "console.png"))

	open("/workers", "#workers")
	if n, m := count(`#workers tr[data-state="alive"]`), count(`#workers tr[data-state="shut down"]`); n != 2 || m != 1 {
		t.Errorf("workers: %d alive and %d shut down, want 2 and 1", n, m)
	}
	browser.Do(t, ctx, "follow the jobs in flight of the leader", chromedp.Click(chromedp.CSS(`#workers tr[data-worker="`+f.worker.String()+`"] a`)), chromedp.WaitVisible(chromedp.CSS("#jobs")))
	if n := count(`#jobs tr[data-status="running"]`); n != 4 {
		t.Errorf("the leader's jobs in flight: %d rows, want 4", n)
	}
	open("/workers", "#workers")
	if leader := browser.Eval[string](t, ctx, `document.getElementById("leader").textContent`); !strings.Contains(leader, f.worker.String()) {
		t.Errorf("workers: leader line %q does not name %s", leader, f.worker)
	}

	open("/jobs?queue=webhook&status=failed", "#jobs")
	if n := count("#jobs tr[data-job]"); n != 2 {
		t.Errorf("failed webhook jobs: %d rows, want 2", n)
	}
	open("/jobs", "#older")

	jobPath := "/jobs/" + f.failed.String()
	open(jobPath, "#attempts")
	if n := count("#retry"); n != 0 {
		t.Error("the retry button shows before logging in")
	}
	// A POST without a session is refused, whatever the form says.
	if status := post(t, ctx, jobPath+"/retry", "anything"); status != "403" {
		t.Errorf("retry without logging in: status %q, want 403", status)
	}

	open("/login?next="+jobPath, "#token")
	browser.Do(t, ctx, "log in", chromedp.SendKeys(chromedp.CSS("#token"), adminToken), chromedp.Click(chromedp.CSS("#login")), chromedp.WaitVisible(chromedp.CSS("#retry")))

	// Without the form's CSRF token the click is refused.
	browser.Eval[bool](t, ctx, `(() => { document.querySelector("#retry").form.querySelector("input[name=csrf]").remove(); return true; })()`)
	browser.Do(t, ctx, "click retry without the CSRF token", chromedp.Click(chromedp.CSS("#retry")), chromedp.WaitVisible(chromedp.CSS("#error")))
	if msg := browser.Eval[string](t, ctx, `document.getElementById("error").textContent`); !strings.Contains(msg, "CSRF") {
		t.Errorf("refusal without CSRF token says %q", msg)
	}
	if next := f.job(t, f.failed).NextAttemptID; !next.IsZero() {
		t.Fatalf("retried (as %s) without the CSRF token", next)
	}

	open(jobPath, "#retry")
	browser.Do(t, ctx, "click retry", chromedp.Click(chromedp.CSS("#retry")), chromedp.WaitVisible(chromedp.CSS("#attempts tr[data-attempt='1']")))
	next := f.job(t, f.failed).NextAttemptID
	if next.IsZero() {
		t.Fatal("clicking retry made no new attempt")
	}
	row := f.job(t, next)
	if row.Attempt != 1 || row.Status != "available" || string(row.Payload) != string(f.job(t, f.failed).Payload) {
		t.Errorf("new attempt %+v, want attempt 1, available, same payload", row)
	}
	if url := browser.Eval[string](t, ctx, `location.pathname`); url != "/jobs/"+next.String() {
		t.Errorf("after retry the browser shows %s, want the new attempt /jobs/%s", url, next)
	}
	browser.Screenshot(t, ctx, "console-job.png", "")
	deleteInBrowser(t, ctx, f, open, jobPath)
	pauseAndResumeInBrowser(t, ctx, f, open)
	bulkInBrowser(t, ctx, f, open)

	// A console without a token refuses even a logged-in looking request.
	ro := f.server(t, "")
	browser.Do(t, ctx, "open the read-only console", chromedp.Navigate(ro.URL+"/jobs/"+f.running.String()), chromedp.WaitVisible(chromedp.CSS(".note")))
	if status := post(t, ctx, "/jobs/"+f.running.String()+"/cancel", ""); status != "403" {
		t.Errorf("cancel on a read-only console: status %q, want 403", status)
	}
	if st := f.job(t, f.running).Status; st != "running" {
		t.Errorf("the read-only console changed job %s to %s", f.running, st)
	}
	browser.Do(t, ctx, "open the read-only overview", chromedp.Navigate(ro.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#queues")))
	if n := count("#queues button"); n != 0 {
		t.Errorf("read-only overview: %d queue buttons, want none", n)
	}
	if status := post(t, ctx, "/queues/pause", ""); status != "403" {
		t.Errorf("pause on a read-only console: status %q, want 403", status)
	}
}

// post submits a form POST from the page to path (the page's policy
// allows forms to its own origin, nothing else) and returns the status the
// error page shows ("" when the POST succeeded).
func post(t *testing.T, ctx context.Context, path, csrf string) string {
	t.Helper()
	browser.Eval[bool](t, ctx, `(() => {
		document.documentElement.dataset.before = "post";
		const f = document.createElement("form");
		f.method = "post"; f.action = `+browser.JS(path)+`;
		const i = document.createElement("input");
		i.type = "hidden"; i.name = "csrf"; i.value = `+browser.JS(csrf)+`;
		f.appendChild(i); document.body.appendChild(f); f.submit(); return true; })()`)
	browser.WaitFor(t, ctx, `!document.documentElement.dataset.before && document.readyState === "complete"`)
	if browser.Eval[int](t, ctx, `document.querySelectorAll("#error").length`) == 0 {
		return ""
	}
	return browser.Eval[string](t, ctx, `document.querySelector("main h1").textContent`)
}
