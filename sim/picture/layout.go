package picture

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tickwork/tickwork/props"
)

// Geometry of the timeline, in pixels.
const (
	padX    = 12
	axisH   = 22
	bandY   = 26
	bandH   = 22
	lanesY  = 60
	slotH   = 14
	lanePad = 5
)

type rect struct{ X, Y, W, H float64 }

type tick struct {
	X     float64
	Label string
}

type laneView struct {
	Name, Process, Ended string
	Y, H, X1, X2         float64
	Class                string // alternate shading per process
}

type barView struct {
	rect
	Class, Job, Row string
}

type termView struct {
	rect
	Expired rect // from the last expiry to the deletion; zero width if none
	Name    string
	Class   string
	Duties  []float64
}

type markerView struct {
	rect
	Kind, Text string
	Span       bool
}

type violationView struct {
	X float64
	// Lane is the lane of the worker whose step broke the property (the
	// committing worker, say); zero height when none is drawn.
	Lane                     rect
	Property, Report, Replay string
	Jobs                     string // the names of the rows it involves
	Tail                     []string
}

// view is the model in pixels, ready for the template.
type view struct {
	Title     string
	Header    []string
	Width     float64
	Height    float64
	Ticks     []tick
	Lanes     []laneView
	Bars      []barView
	Execs     []rect
	Terms     []termView
	Markers   []markerView
	Outages   []rect
	Violation *violationView
	Counts    map[string]int
}

// scale picks pixels per second so that a run fills a wide screen or more,
// and tick spacing so that labels do not collide.
func scale(end float64) (pps, step float64) {
	pps = math.Max(15, math.Min(240, 2400/math.Max(end, 1)))
	for _, s := range []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300} {
		if s*pps >= 70 {
			return pps, s
		}
	}
	return pps, 600
}

func layout(in *Input, m *model) *view {
	m.order()
	pps, step := scale(m.end)
	x := func(s float64) float64 { return padX + s*pps }
	v := &view{Title: in.Title, Header: in.Header, Width: x(m.end) + 2*padX, Counts: map[string]int{}}
	for s := 0.0; s <= m.end+1e-9; s += step {
		v.Ticks = append(v.Ticks, tick{X: x(s), Label: strconv.FormatFloat(math.Round(s*100)/100, 'f', -1, 64) + "s"})
	}
	color := map[string]int{} // holder -> lane index, for the band's colours
	y := float64(lanesY)
	for i, l := range m.lanes {
		assignSlots(l)
		h := float64(max(l.slots, 1))*slotH + 2*lanePad
		shade := "even"
		if procIndex(m.lanes, i)%2 == 1 {
			shade = "odd"
		}
		v.Lanes = append(v.Lanes, laneView{Name: l.name, Process: l.process, Ended: l.ended, Y: y, H: h, X1: x(l.from), X2: x(l.to), Class: shade})
		color[l.id.String()] = i
		for _, b := range l.bars {
			r := rect{X: x(b.from), Y: y + lanePad + float64(b.slot)*slotH + 1, W: math.Max(x(b.to)-x(b.from), 2), H: slotH - 2}
			class := "bar " + b.outcome
			if b.involved {
				class += " involved"
			}
			v.Bars = append(v.Bars, barView{rect: r, Class: class, Job: in.name(b.job), Row: describeRow(in, b)})
			v.Counts[b.outcome]++
		}
		for _, e := range l.execs {
			v.Execs = append(v.Execs, rect{X: x(e.from), Y: y + h - 3, W: math.Max(x(e.to)-x(e.from), 1), H: 2})
		}
		y += h
	}
	v.Height = y + 8
	for _, t := range m.terms {
		tv := termView{rect: rect{X: x(t.from), Y: bandY, W: math.Max(x(math.Min(t.expires, t.to))-x(t.from), 2), H: bandH}, Name: in.name(t.holder)}
		if t.expires < t.to {
			tv.Expired = rect{X: x(t.expires), Y: bandY, W: x(t.to) - x(t.expires), H: bandH}
		}
		tv.Class = fmt.Sprintf("t%d", color[t.holder.String()]%6)
		for _, d := range t.duties {
			tv.Duties = append(tv.Duties, x(d))
		}
		v.Terms = append(v.Terms, tv)
	}
	for _, o := range m.outages {
		v.Outages = append(v.Outages, rect{X: x(o.from), Y: bandY, W: math.Max(x(o.to)-x(o.from), 2), H: v.Height - bandY})
	}
	v.Markers = markerViews(m, v, x)
	v.Violation = violationOf(in, x)
	if v.Violation != nil {
		v.Violation.Lane = culpritLane(in, m, v)
	}
	return v
}

// procIndex counts the distinct processes before lane i (lanes are sorted by
// process), for alternate shading.
func procIndex(lanes []*lane, i int) int {
	n := 0
	for j := 1; j <= i; j++ {
		if lanes[j].process != lanes[j-1].process {
			n++
		}
	}
	return n
}

// assignSlots stacks overlapping bars of one lane: each bar takes the first
// slot free at its start.
func assignSlots(l *lane) {
	slices.SortStableFunc(l.bars, func(a, b *bar) int { return cmp.Compare(a.from, b.from) })
	var ends []float64
	for _, b := range l.bars {
		slot := slices.IndexFunc(ends, func(e float64) bool { return e <= b.from })
		if slot < 0 {
			slot = len(ends)
			ends = append(ends, 0)
		}
		ends[slot] = b.to
		b.slot = slot
	}
	l.slots = len(ends)
}

func markerViews(m *model, v *view, x func(float64) float64) []markerView {
	laneY := map[*lane]laneView{}
	for i, l := range m.lanes {
		laneY[l] = v.Lanes[i]
	}
	var out []markerView
	for _, mk := range m.markers {
		r := rect{X: x(mk.at), Y: lanesY, H: v.Height - lanesY}
		if lv, ok := laneY[mk.lane]; ok && mk.lane != nil {
			r.Y, r.H = lv.Y, lv.H
		}
		r.W = x(mk.to) - x(mk.at)
		out = append(out, markerView{rect: r, Kind: mk.kind, Text: fmt.Sprintf("%.6fs %s", mk.at, mk.text), Span: mk.to > mk.at})
	}
	return out
}

// culpritLane is the lane of the worker that recorded the violating event.
// A liveness violation, found after the last event, has none.
func culpritLane(in *Input, m *model, v *view) rect {
	if in.Violation.Index >= len(in.Events) {
		return rect{}
	}
	for _, e := range in.Events {
		if e.Seq != in.Violation.Seq || e.Worker.IsZero() {
			continue
		}
		for i, l := range m.lanes {
			if l.id == e.Worker {
				lv := v.Lanes[i]
				return rect{X: v.Violation.X - 7, Y: lv.Y + lv.H/2 - 7, W: 14, H: 14}
			}
		}
	}
	return rect{}
}

func violationOf(in *Input, x func(float64) float64) *violationView {
	vi := in.Violation
	if vi == nil {
		return nil
	}
	report := in.Report
	if report == "" {
		report = vi.String()
	}
	var jobs []string
	for _, j := range vi.Jobs {
		if n := in.name(j.ID); !slices.Contains(jobs, n) {
			jobs = append(jobs, n)
		}
	}
	return &violationView{X: x(in.seconds(vi.Time)), Property: vi.Property.String(), Report: report, Replay: in.Replay,
		Jobs: strings.Join(jobs, ", "), Tail: in.Tail}
}

// describeRow is the text shown when hovering a bar: the row as it was when
// the reservation ended (or at the end of the run).
func describeRow(in *Input, b *bar) string {
	r := b.row
	at := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return fmt.Sprintf("%.6fs", in.seconds(t))
	}
	lines := []string{
		fmt.Sprintf("job %s (%s)", in.name(r.ID), r.ID),
		fmt.Sprintf("queue %s  attempt %d  status %s", r.Queue, r.Attempt, r.Status),
		fmt.Sprintf("created %s  scheduled %s", at(r.CreatedAt), at(r.ScheduledAt)),
		fmt.Sprintf("started %s by %s", at(r.StartedAt), in.name(r.StartedBy)),
	}
	switch r.Status {
	case props.Completed:
		lines = append(lines, "completed "+at(r.CompletedAt))
	case props.Snoozed:
		lines = append(lines, fmt.Sprintf("snoozed %s (%d snoozes before)", at(r.CompletedAt), r.Snoozes))
	case props.Failed, props.Lost:
		lines = append(lines, fmt.Sprintf("%s %s: %s", r.Status, at(r.FailedAt), in.ids.Replace(r.FailedReason)))
	case props.Cancelled:
		lines = append(lines, "cancelled "+at(r.CancelledAt))
	}
	if !r.NextAttemptID.IsZero() {
		lines = append(lines, "next attempt "+in.name(r.NextAttemptID))
	}
	if r.ScheduleName != "" {
		lines = append(lines, "schedule "+r.ScheduleName)
	}
	lines = append(lines, fmt.Sprintf("reserved %.6fs – %.6fs (%s)", b.from, b.to, b.outcome))
	return strings.Join(lines, "\n")
}
