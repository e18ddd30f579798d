package picture

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
)

// model is the run reduced to what is drawn, in seconds since the start.
type model struct {
	end     float64
	lanes   []*lane
	byID    map[ulid.ULID]*lane
	terms   []term
	markers []marker
	outages []span
}

// lane is one worker incarnation: a worker row and the process behind it.
type lane struct {
	id       ulid.ULID
	name     string
	process  string
	from, to float64 // registered until crash or shutdown (end of run: open)
	ended    string  // "crash", "shutdown" or ""
	bars     []*bar
	execs    []span
	slots    int
}

// bar is one reservation of a job row: from running until the row left
// running (or the run ended).
type bar struct {
	job      ulid.ULID
	from, to float64
	outcome  string // the status the row ended in; "running" when it did not
	row      props.JobRow
	slot     int
	involved bool // the violation names this row
}

// term is one leader term: a holder from election to deletion, with the part
// after its last expiry marked.
type term struct {
	holder            ulid.ULID
	from, expires, to float64
	duties            []float64
}

type span struct{ from, to float64 }

// marker is a point (or, with a length, a span) fault on a lane, or on the
// whole picture when lane is nil.
type marker struct {
	lane   *lane
	at, to float64
	kind   string // crash, stall, jump, ambiguous, store-error, fenced, dead, shutdown
	text   string
}

func (in *Input) seconds(t time.Time) float64 { return t.Sub(in.Start).Seconds() }

// build reduces the history to the model; markers from the trace are added
// by addTraceMarkers.
func build(in *Input) *model {
	m := &model{byID: map[ulid.ULID]*lane{}}
	open := map[ulid.ULID]*bar{}
	var cur *term
	for _, e := range in.Events {
		at := in.seconds(e.Time)
		m.end = max(m.end, at)
		switch e.Kind {
		case props.Commit:
			m.workers(in, e, at)
			m.jobs(e, at, open)
			cur = m.leases(e, at, cur)
		case props.ExecStarted:
			if l := m.byID[e.Worker]; l != nil {
				l.execs = append(l.execs, span{at, -1})
			}
		case props.ExecEnded:
			m.endExec(e.Worker, at)
		case props.Crashed:
			if l := m.byID[e.Worker]; l != nil && l.ended == "" {
				l.to, l.ended = at, "crash"
			}
			m.mark(m.byID[e.Worker], at, "crash", "crash of "+e.Process)
		case props.DeclaredDead:
			m.mark(m.byID[e.Worker], at, "dead", e.Process+" learns it was declared dead")
		case props.ShutdownBegan:
			m.mark(m.byID[e.Worker], at, "shutdown", "graceful shutdown begins")
		case props.ResultFenced:
			m.mark(m.byID[e.Worker], at, "fenced", "result of "+in.name(e.Job)+" fenced off")
		case props.DutiesStarted:
			if cur != nil && cur.holder == e.Worker {
				cur.duties = append(cur.duties, at)
			}
		}
	}
	m.closeAll(open, cur)
	m.involve(in.Violation)
	return m
}

func (m *model) workers(in *Input, e props.Event, at float64) {
	for _, ch := range e.Workers {
		switch {
		case ch.Before == nil && ch.After != nil:
			l := &lane{id: ch.After.ID, name: in.name(ch.After.ID), process: e.Process, from: at, to: -1}
			if l.process == "" {
				l.process, _, _ = strings.Cut(l.name, ".")
			}
			m.lanes = append(m.lanes, l)
			m.byID[l.id] = l
		case ch.After != nil && !ch.After.ShutdownAt.IsZero() && (ch.Before == nil || ch.Before.ShutdownAt.IsZero()):
			if l := m.byID[ch.After.ID]; l != nil && l.ended == "" {
				// Shut down by another worker: the leader declared it dead.
				l.to, l.ended = at, "shutdown"
				if e.Worker != l.id {
					l.ended = "declared dead"
				}
			}
		}
	}
}

func (m *model) jobs(e props.Event, at float64, open map[ulid.ULID]*bar) {
	for _, ch := range e.Jobs {
		a := ch.After
		wasRunning := ch.Before != nil && ch.Before.Status == props.Running
		if a != nil && a.Status == props.Running && !wasRunning {
			b := &bar{job: a.ID, from: at, to: -1, outcome: "running", row: *a}
			open[a.ID] = b
			if l := m.byID[a.StartedBy]; l != nil {
				l.bars = append(l.bars, b)
			}
			continue
		}
		id := rowID(ch)
		if b := open[id]; b != nil && (a == nil || a.Status != props.Running) {
			b.to = at
			if a != nil {
				b.outcome, b.row = string(a.Status), *a
			} else {
				b.outcome = "deleted"
			}
			delete(open, id)
		}
	}
}

func rowID(ch props.JobChange) ulid.ULID {
	if ch.After != nil {
		return ch.After.ID
	}
	return ch.Before.ID
}

// leases follows the lease row: a new holder or election time starts a term;
// a deletion ends it.
func (m *model) leases(e props.Event, at float64, cur *term) *term {
	for _, ch := range e.Leases {
		a := ch.After
		if cur != nil && (a == nil || a.Holder != cur.holder || !a.ElectedAt.Equal(ch.Before.ElectedAt)) {
			cur.to = at
			m.terms = append(m.terms, *cur)
			cur = nil
		}
		if a == nil {
			continue
		}
		exp := at + a.ExpiresAt.Sub(e.Time).Seconds()
		if cur == nil {
			cur = &term{holder: a.Holder, from: at, expires: exp, to: -1}
		}
		cur.expires = exp
	}
	return cur
}

func (m *model) endExec(worker ulid.ULID, at float64) {
	l := m.byID[worker]
	if l == nil {
		return
	}
	for i := len(l.execs) - 1; i >= 0; i-- {
		if l.execs[i].to < 0 {
			l.execs[i].to = at
			return
		}
	}
}

// closeAll ends what was still open when the run stopped at m.end.
func (m *model) closeAll(open map[ulid.ULID]*bar, cur *term) {
	for _, b := range open {
		b.to = m.end
	}
	if cur != nil {
		cur.to = m.end
		m.terms = append(m.terms, *cur)
	}
	for _, l := range m.lanes {
		if l.to < 0 {
			l.to = m.end
		}
		for i := range l.execs {
			if l.execs[i].to < 0 {
				l.execs[i].to = min(m.end, l.to)
			}
		}
	}
}

// involve marks the bars of the rows the violation names.
func (m *model) involve(v *props.Violation) {
	if v == nil {
		return
	}
	ids := map[ulid.ULID]bool{}
	for _, j := range v.Jobs {
		ids[j.ID] = true
	}
	for _, e := range v.Events {
		if !e.Job.IsZero() {
			ids[e.Job] = true
		}
	}
	for _, l := range m.lanes {
		for _, b := range l.bars {
			b.involved = ids[b.job]
		}
	}
}

func (m *model) mark(l *lane, at float64, kind, text string) {
	m.markers = append(m.markers, marker{lane: l, at: at, to: at, kind: kind, text: text})
}

// laneOf returns the lane the process was acting as at time at: its latest
// incarnation registered by then (or its first one).
func (m *model) laneOf(process string, at float64) *lane {
	var found *lane
	for _, l := range m.lanes {
		if l.process != process {
			continue
		}
		if found == nil || l.from <= at {
			found = l
		}
	}
	return found
}

// order sorts lanes by process, then registration, so each process's
// incarnations sit together.
func (m *model) order() {
	slices.SortStableFunc(m.lanes, func(a, b *lane) int {
		return cmp.Or(strings.Compare(a.process, b.process), cmp.Compare(a.from, b.from))
	})
}

func (in *Input) name(id ulid.ULID) string {
	if n, ok := in.Names[id]; ok {
		return n
	}
	if id.IsZero() {
		return "-"
	}
	s := id.String()
	return "…" + s[len(s)-6:]
}
