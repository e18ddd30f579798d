//go:build mutants

package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tickwork/tickwork/internal/browser"
	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/internal/mutant"
)

// TestPictureOfAFailingSeed plants a bug, draws the first seed that catches
// it with -html, and checks in Chromium that the page shows the violation
// (marker, report, replay command), the lanes, and the executions involved.
// The screenshot is a test artefact and, with UPDATE_DOCS=1, docs/seed-picture.png.
func TestPictureOfAFailingSeed(t *testing.T) {
	long.Test(t, "a planted bug's seed drawn in Chromium")
	defer mutant.Select("")
	path := filepath.Join(t.TempDir(), "seed.html")
	seed := ""
	for s := 1; s <= 20 && seed == ""; s++ {
		status, out, errOut := runArgs(t, "-mutant", mutant.NoRescue, "-seed", strconv.Itoa(s), "-html", path)
		if !strings.Contains(out, "written to "+path) {
			t.Fatalf("seed %d: no picture written (status %d):\n%s%s", s, status, out, errOut)
		}
		if status == 1 {
			seed = strconv.Itoa(s)
		}
	}
	if seed == "" {
		t.Fatalf("planted bug %s caught by none of seeds 1..20", mutant.NoRescue)
	}
	ctx := browser.New(t)
	browser.Do(t, ctx, "open the picture of seed "+seed, chromedp.Navigate("file://"+path), chromedp.WaitVisible(chromedp.CSS("#violation-line")))
	if n := browser.Eval[int](t, ctx, `document.querySelectorAll("[data-lane]").length`); n < 2 {
		t.Errorf("%d lanes; want one per worker incarnation", n)
	}
	if n := browser.Eval[int](t, ctx, `document.querySelectorAll("#violation-culprit").length`); n != 1 {
		t.Error("the step that broke the property is not circled on its worker's lane")
	}
	if n := browser.Eval[int](t, ctx, `document.querySelectorAll(".bar.involved").length`); n == 0 {
		t.Error("no execution marked as involved in the violation")
	}
	report := browser.Eval[string](t, ctx, `document.getElementById("violation").innerText`)
	wantReplay := "go run -tags mutants ./cmd/simulate -mutant " + mutant.NoRescue + " -seed " + seed + " -v"
	for _, want := range []string{"leader pass complete", wantReplay, "VIOLATION"} {
		if !strings.Contains(report, want) {
			t.Errorf("the violation box lacks %q:\n%s", want, report)
		}
	}
	// The timeline scrolls so the violation is in view.
	if !browser.Eval[bool](t, ctx, `(() => { const r = document.getElementById("violation-line").getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth; })()`) {
		t.Error("the violation marker is outside the visible part of the timeline")
	}
	browser.Screenshot(t, ctx, "seed-picture.png", filepath.Join("..", "..", "docs", "seed-picture.png"))
}
