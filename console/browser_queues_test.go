package console

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tickwork/tickwork/internal/browser"
	"github.com/tickwork/tickwork/store"
)

// pauseAndResumeInBrowser, logged in, pauses queue email from the overview
// (first refused without the form's CSRF token), checks the store and the
// page, then resumes it.
func pauseAndResumeInBrowser(t *testing.T, ctx context.Context, f *fixture, open func(path, waitFor string)) {
	t.Helper()
	const row = `#queues tr[data-queue="email"]`
	open("/", row+` button[data-action="pause"]`)
	browser.Eval[bool](t, ctx, `(() => { document.querySelector(`+browser.JS(row+" input[name=csrf]")+`).remove(); return true; })()`)
	browser.Do(t, ctx, "click pause without the CSRF token", chromedp.Click(chromedp.CSS(row+" button")), chromedp.WaitVisible(chromedp.CSS("#error")))
	if at := f.queueControls(t)["email"].PausedAt; !at.IsZero() {
		t.Fatalf("paused (at %v) without the CSRF token", at)
	}

	open("/", row+` button[data-action="pause"]`)
	browser.Do(t, ctx, "click pause", chromedp.Click(chromedp.CSS(row+" button")), chromedp.WaitVisible(chromedp.CSS(row+` button[data-action="resume"]`)))
	if at := f.queueControls(t)["email"].PausedAt; at.IsZero() {
		t.Fatal("clicking pause did not pause queue email in the store")
	}
	if shown := cell(t, ctx, "email", "td.paused"); !strings.HasPrefix(shown, "paused for ") {
		t.Errorf("overview shows email as %q, want paused for …", shown)
	}
	if shown := cell(t, ctx, "webhook", "td.paused"); shown != "active" {
		t.Errorf("overview shows webhook as %q, want active", shown)
	}

	browser.Do(t, ctx, "click resume", chromedp.Click(chromedp.CSS(row+" button")), chromedp.WaitVisible(chromedp.CSS(row+` button[data-action="pause"]`)))
	if at := f.queueControls(t)["email"].PausedAt; !at.IsZero() {
		t.Errorf("queue email still paused at %v after clicking resume", at)
	}
}

// cell is the text of the cell matching sel in queue's row of the overview.
func cell(t *testing.T, ctx context.Context, queue, sel string) string {
	t.Helper()
	return browser.Eval[string](t, ctx, `document.querySelector(`+browser.JS(`#queues tr[data-queue="`+queue+`"] `+sel)+`).textContent.trim()`)
}

// controlQueue sets a queue's controls in the store, as the CLI does.
func (f *fixture) controlQueue(t *testing.T, edit func(context.Context, store.Tx) error) {
	t.Helper()
	ctx := context.Background()
	if err := f.st.InTx(ctx, func(tx store.Tx) error { return edit(ctx, tx) }); err != nil {
		t.Fatal(err)
	}
}
