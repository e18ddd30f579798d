// Package browser starts a headless Chromium for tests that check pages in a
// real browser (the operator's console, the simulator's picture of a seed).
//
// Tests call New; without a browser on the machine they fail when the CI
// environment variable is set and are skipped with a message otherwise.
package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/tickwork/tickwork/internal/long"
)

// candidates are the names Debian and other distributions give Chromium;
// $CHROMIUM, when set, is tried first.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Find returns the path of a Chromium executable, or "" if none is installed.
func Find() string {
	names := candidates
	if env := os.Getenv("CHROMIUM"); env != "" {
		names = append([]string{env}, names...)
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// Width and Height are the browser window's size: wide enough for a page's
// tables and a seed's timeline without horizontal scrolling of the chrome.
const Width, Height = 1400, 900

// New starts a headless Chromium with a fresh profile and returns a chromedp
// context whose tab the test drives; extra options (flags such as
// host-resolver-rules) follow the defaults. The browser stops when the test
// ends.
// Every action should run under Timeout (see Run) so a hung page fails the
// test instead of stalling the run.
func New(t testing.TB, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	path := Find()
	if path == "" {
		long.Unavailable(t, "no Chromium on this machine (looked for $CHROMIUM, chromium, chromium-browser, google-chrome): apt-get install -y chromium")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // tests run as root in CI containers
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")),
		chromedp.WindowSize(Width, Height),
	}
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
	})
	// The first Run starts the browser; its context must outlive every
	// later action, so it gets no timeout of its own (chromedp.Run).
	start := time.Now()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	t.Logf("started %s in %v", path, time.Since(start).Round(time.Millisecond))
	return ctx
}

// Timeout bounds one browser action.
const Timeout = 20 * time.Second

// Do runs actions on the test's tab under Timeout and fails the test on an
// error, naming what was being done.
func Do(t testing.TB, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// Eval evaluates a JavaScript expression on the test's tab and returns its
// value (awaiting it if it is a promise), failing the test on an error.
func Eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// Screenshot captures the whole page as a PNG, stores it as a test artefact
// (go test -artifacts keeps it), and, when UPDATE_DOCS is set, also writes
// it to docPath (for the README). It returns the PNG.
func Screenshot(t *testing.T, ctx context.Context, name, docPath string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	out := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatalf("save screenshot: %v", err)
	}
	t.Logf("screenshot %s (%d bytes)", out, len(png))
	if os.Getenv("UPDATE_DOCS") != "" && docPath != "" {
		if err := os.WriteFile(docPath, png, 0o644); err != nil {
			t.Fatalf("save screenshot for the docs: %v", err)
		}
		t.Logf("wrote %s", docPath)
	}
	return png
}

// Hover moves the real mouse pointer to the centre of the first element
// matching the CSS selector, after scrolling it into view, so the page sees
// the same events as from a person's mouse.
func Hover(t testing.TB, ctx context.Context, selector string) {
	t.Helper()
	Do(t, ctx, "scroll "+selector+" into view", chromedp.ScrollIntoView(chromedp.CSS(selector)))
	js := fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`, selector)
	xy := Eval[[]float64](t, ctx, js)
	Do(t, ctx, "hover "+selector, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[0], xy[1]))
}

// JS quotes s as a JavaScript string literal.
func JS(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// WaitFor evaluates a JavaScript condition until it is true, for up to
// Timeout. Unlike a chromedp poll it survives the page navigating away
// (a form submission): an evaluation that fails on the old page is retried
// on the new one.
func WaitFor(t testing.TB, ctx context.Context, cond string) {
	t.Helper()
	if err := Until(ctx, cond); err != nil {
		t.Fatal(err)
	}
}

// Until is WaitFor returning an error instead of failing the test, for a
// test that expects the condition may never hold.
func Until(ctx context.Context, cond string) error {
	deadline := time.Now().Add(Timeout)
	var last error
	for time.Now().Before(deadline) {
		ectx, cancel := context.WithTimeout(ctx, time.Second)
		ok, err := chromedp.Run(ectx, chromedp.Evaluate[bool](cond))
		cancel()
		if err == nil && ok {
			return nil
		}
		last = err
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("waiting for %s: still false after %v (last error: %v)", cond, Timeout, last)
}
