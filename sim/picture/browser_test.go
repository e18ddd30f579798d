package picture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tickwork/tickwork/internal/browser"
	"github.com/tickwork/tickwork/internal/long"
)

// TestHoverShowsTheJobRow opens a seed's picture in Chromium, moves the
// mouse over a completed execution and expects the job's row in the tooltip.
func TestHoverShowsTheJobRow(t *testing.T) {
	long.Test(t, "drives the picture in Chromium")
	page, _ := render(t, 3)
	path := filepath.Join(t.TempDir(), "seed3.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := browser.New(t)
	browser.Do(t, ctx, "open the picture", chromedp.Navigate("file://"+path), chromedp.WaitVisible(chromedp.CSS("#timeline")))
	if n := browser.Eval[int](t, ctx, `document.querySelectorAll("[data-lane]").length`); n == 0 {
		t.Fatal("no lanes drawn")
	}
	if browser.Eval[bool](t, ctx, `getComputedStyle(document.getElementById("tip")).display !== "none"`) {
		t.Fatal("the tooltip shows before any hover")
	}
	// A completed bar that no other bar covers at its centre, where the
	// mouse will be: bars of one lane may overlap.
	job := browser.Eval[string](t, ctx, `(() => {
		for (const b of document.querySelectorAll(".bar.completed")) {
			const r = b.getBoundingClientRect();
			const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
			if (top && (top === b || b.contains(top))) { b.id = "hover-target"; return b.dataset.job; }
		}
		return "";
	})()`)
	if job == "" {
		t.Fatal("no completed bar is uncovered at its centre")
	}
	browser.Hover(t, ctx, "#hover-target")
	tip := browser.Eval[string](t, ctx, `document.getElementById("tip").style.display + "|" + document.getElementById("tip").textContent`)
	if !strings.HasPrefix(tip, "block|job "+job+" (") || !strings.Contains(tip, "status completed") {
		t.Errorf("tooltip after hovering %s's bar = %q, want its row", job, tip)
	}
}
