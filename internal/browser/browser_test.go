package browser

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
	"go.uber.org/goleak"

	"github.com/tickwork/tickwork/internal/long"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestBrowserRunsScriptsAndScreenshots checks that the browser really runs
// a page's JavaScript (the text below exists only after the script ran) and
// that a screenshot is a PNG.
func TestBrowserRunsScriptsAndScreenshots(t *testing.T) {
	long.Test(t, "starts Chromium")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>t</title><p id="out">static</p>
<script>document.getElementById("out").textContent = "computed " + (6 * 7);</script>`)
	}))
	defer srv.Close()
	ctx := New(t)
	Do(t, ctx, "load the page", chromedp.Navigate(srv.URL), chromedp.WaitVisible(chromedp.CSS("#out")))
	if got := Eval[string](t, ctx, `document.getElementById("out").textContent`); got != "computed 42" {
		t.Errorf("text after the script = %q, want %q", got, "computed 42")
	}
	png := Screenshot(t, ctx, "smoke.png", "")
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("screenshot is not a PNG: starts %q", png[:min(8, len(png))])
	}
}
