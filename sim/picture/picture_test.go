package picture

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/sim"
)

// render runs seed in the simulator, recording what the picture needs, and
// returns the page and the history.
func render(t *testing.T, seed uint64) ([]byte, []props.Event) {
	t.Helper()
	var events []props.Event
	var trace bytes.Buffer
	r := sim.Run(sim.Draw(seed, sim.FaultOverrides{}), sim.Options{Trace: &trace, Record: func(e props.Event) { events = append(events, e) }})
	if r.Err != nil {
		t.Fatalf("seed %d: %v", seed, r.Err)
	}
	var page bytes.Buffer
	in := Input{Title: "test", Start: sim.Epoch, Events: events, Names: r.Names, Trace: strings.Split(trace.String(), "\n"), Violation: r.Violation, Report: r.Report, Tail: r.Tail}
	if err := Write(&page, in); err != nil {
		t.Fatal(err)
	}
	return page.Bytes(), events
}

// TestOneLanePerIncarnationOneBarPerReservation counts, in the history, the
// worker rows registered and the reservations, and requires a lane and a bar
// for each.
func TestOneLanePerIncarnationOneBarPerReservation(t *testing.T) {
	page, events := render(t, 3)
	workers, reservations := 0, 0
	for _, e := range events {
		for _, ch := range e.Workers {
			if ch.Before == nil && ch.After != nil {
				workers++
			}
		}
		for _, ch := range e.Jobs {
			if ch.After != nil && ch.After.Status == props.Running && (ch.Before == nil || ch.Before.Status != props.Running) {
				reservations++
			}
		}
	}
	if workers == 0 || reservations == 0 {
		t.Fatalf("seed 3 registered %d workers and reserved %d jobs; pick a busier seed", workers, reservations)
	}
	if got := bytes.Count(page, []byte(`data-lane="`)); got != workers {
		t.Errorf("%d lanes for %d worker incarnations", got, workers)
	}
	if got := bytes.Count(page, []byte(`class="bar `)); got != reservations {
		t.Errorf("%d bars for %d reservations", got, reservations)
	}
}

// TestSelfContainedAndDeterministic: the page loads nothing from elsewhere
// (it must open on a machine without internet), and the same run gives the
// same bytes.
func TestSelfContainedAndDeterministic(t *testing.T) {
	a, _ := render(t, 5)
	b, _ := render(t, 5)
	if !bytes.Equal(a, b) {
		t.Error("two renderings of seed 5 differ")
	}
	external := regexp.MustCompile(`(?i)<(script|img|link|iframe)[^>]*(src|href)=|@import|url\(\s*['"]?(https?:)?//|https?://[^"\s]*\.(js|css)`)
	if loc := external.FindIndex(a); loc != nil {
		t.Errorf("the page refers to an outside resource: %q", a[loc[0]:min(loc[1]+40, len(a))])
	}
}

// TestBarsFollowRowsAndMarkers draws a small history by hand and checks
// where the bar, the leader term and the markers land.
func TestBarsFollowRowsAndMarkers(t *testing.T) {
	t0 := sim.Epoch
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	w, j := ulid.Make(), ulid.Make()
	row := func(st props.Status, by ulid.ULID) *props.JobRow {
		return &props.JobRow{ID: j, Queue: "q0", Status: st, StartedBy: by, CreatedAt: t0, ScheduledAt: t0}
	}
	events := []props.Event{
		{Seq: 1, Time: at(0), Kind: props.Commit, Process: "w0", Workers: []props.WorkerChange{{After: &props.WorkerRow{ID: w}}},
			Leases: []props.LeaseChange{{After: &props.LeaseRow{Holder: w, ElectedAt: at(0), ExpiresAt: at(5)}}},
			Jobs:   []props.JobChange{{After: row(props.Available, ulid.ULID{})}}},
		{Seq: 2, Time: at(1), Kind: props.Commit, Worker: w, Jobs: []props.JobChange{{Before: row(props.Available, ulid.ULID{}), After: row(props.Running, w)}}},
		{Seq: 3, Time: at(3), Kind: props.Commit, Worker: w, Jobs: []props.JobChange{{Before: row(props.Running, w), After: row(props.Completed, w)}}},
		{Seq: 4, Time: at(4), Kind: props.Crashed, Process: "w0", Worker: w},
	}
	trace := []string{"seed 0 header", "    2.000000 w0 STALL for 1.5s", "    2.500000 db outage for 1s", "    3.500000 w0 store error after the commit"}
	var page bytes.Buffer
	names := map[ulid.ULID]string{w: "w0.1", j: "j1"}
	if err := Write(&page, Input{Title: "hand", Start: t0, Events: events, Names: names, Trace: trace}); err != nil {
		t.Fatal(err)
	}
	s := page.String()
	for _, want := range []string{
		`class="bar completed" data-job="j1"`,
		`data-lane="w0.1"`, "w0.1 (crash)",
		`class="term t0"`,
		`data-kind="stall"`, `data-kind="crash"`, `data-kind="ambiguous"`,
		`class="outage"`,
		`id="no-violation"`,
		"seed 0 header",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	pps, _ := scale(4)
	wantX, wantW := padX+1*pps, 2*pps
	bar := regexp.MustCompile(`class="bar completed"[^>]* x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)"`).FindStringSubmatch(s)
	if bar == nil || bar[1] != f1(wantX) || bar[2] != f1(wantW) {
		t.Errorf("bar at %v, want x=%s width=%s (reserved at 1 s, completed at 3 s)", bar, f1(wantX), f1(wantW))
	}
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }

// TestCulpritOnlyForASafetyStep: a violation found at an event circles its
// worker's lane; one found after the run (liveness) circles nothing.
func TestCulpritOnlyForASafetyStep(t *testing.T) {
	w := ulid.Make()
	events := []props.Event{
		{Seq: 1, Time: sim.Epoch, Kind: props.Commit, Process: "w0", Workers: []props.WorkerChange{{After: &props.WorkerRow{ID: w}}}},
		{Seq: 2, Time: sim.Epoch.Add(time.Second), Kind: props.Commit, Worker: w},
	}
	for _, c := range []struct {
		index int
		want  bool
	}{{1, true}, {2, false}} {
		v := &props.Violation{Property: props.SingleExecution, Index: c.index, Seq: 2, Time: events[1].Time}
		var page bytes.Buffer
		if err := Write(&page, Input{Title: "t", Start: sim.Epoch, Events: events, Violation: v}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(page.String(), `id="violation-culprit"`); got != c.want {
			t.Errorf("violation at index %d of %d events: culprit circled %v, want %v", c.index, len(events), got, c.want)
		}
	}
}
