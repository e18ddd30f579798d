package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
)

// netFigures are the detection and recovery times of the network faults,
// worked out of the history and the workers' logs.
type netFigures struct {
	failed, declared, leaseMoved []time.Duration // blackholes: from the cut
	rejoined                     []time.Duration // blackholes: from their end
	fenced, blackholes           int
	noticed, reconnected         []time.Duration // LISTEN silences: from the silence (reconnected: from its end)
	polled, silences             int             // jobs the silenced workers started meanwhile
}

// measureNet works the figures out of the history's events.
func (r *run) measureNet(o outcome) netFigures {
	var nf netFigures
	events := o.history.Events
	for _, f := range r.net.over {
		switch f.kind {
		case netBlackhole:
			nf.blackholes++
			r.measureBlackhole(&nf, f, events)
		case netListenSilent:
			nf.silences++
			nf.polled += countEvents(events, props.ExecStarted, f.slot.name, f.dbFrom, f.dbTo)
			if t, ok := logTime(f.slot, "listen connection lost", f.wallFrom); ok {
				nf.noticed = append(nf.noticed, t.Sub(f.wallFrom))
			}
			if t, ok := logTime(f.slot, "listen connection restored", f.wallTo); ok {
				nf.reconnected = append(nf.reconnected, t.Sub(f.wallTo))
			}
		}
	}
	return nf
}

// measureBlackhole finds when the cut-off worker was declared dead and
// its lease (if it held it) passed on, and when it started a job again.
func (r *run) measureBlackhole(nf *netFigures, f *netFault, events []props.Event) {
	if t, ok := logTime(f.slot, "msg=store-error", f.wallFrom); ok {
		nf.failed = append(nf.failed, t.Sub(f.wallFrom))
	}
	w, holder := workerAt(events, f.slot.name, f.dbFrom)
	for _, e := range events {
		if e.Kind != props.Commit || !e.Time.After(f.dbFrom) {
			continue
		}
		for _, c := range e.Workers {
			if c.After != nil && c.After.ID == w && !c.After.ShutdownAt.IsZero() && (c.Before == nil || c.Before.ShutdownAt.IsZero()) {
				nf.declared = append(nf.declared, e.Time.Sub(f.dbFrom))
			}
		}
		for _, c := range e.Leases {
			if holder == w && !w.IsZero() && c.After != nil && c.After.Holder != w {
				nf.leaseMoved = append(nf.leaseMoved, e.Time.Sub(f.dbFrom))
				holder = c.After.Holder
			}
		}
	}
	nf.fenced += countEvents(events, props.ResultFenced, f.slot.name, f.dbFrom, f.dbTo.Add(r.o.deadAfter))
	for _, e := range events {
		if e.Kind == props.ExecStarted && e.Process == f.slot.name && e.Time.After(f.dbTo) {
			nf.rejoined = append(nf.rejoined, e.Time.Sub(f.dbTo))
			break
		}
	}
}

// workerAt returns the worker id process acted as at t, and the lease
// holder then.
func workerAt(events []props.Event, process string, t time.Time) (w, holder ulid.ULID) {
	for _, e := range events {
		if e.Time.After(t) {
			break
		}
		if e.Process == process && !e.Worker.IsZero() {
			w = e.Worker
		}
		for _, c := range e.Leases {
			if c.After != nil {
				holder = c.After.Holder
			} else {
				holder = ulid.ULID{}
			}
		}
	}
	return w, holder
}

func countEvents(events []props.Event, kind props.Kind, process string, from, to time.Time) int {
	n := 0
	for _, e := range events {
		if e.Kind == kind && e.Process == process && e.Time.After(from) && !e.Time.After(to) {
			n++
		}
	}
	return n
}

// logTime returns the time of the first line of s's logs, at or after
// from, that holds msg (text logs: time=RFC 3339).
func logTime(s *slot, msg string, from time.Time) (time.Time, bool) {
	for _, path := range s.stderrs {
		file, err := os.Open(path)
		if err != nil {
			continue
		}
		t, ok := scanLog(file, msg, from)
		file.Close()
		if ok {
			return t, true
		}
	}
	return time.Time{}, false
}

func scanLog(r io.Reader, msg string, from time.Time) (time.Time, bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, msg) || !strings.HasPrefix(line, "time=") {
			continue
		}
		stamp, _, _ := strings.Cut(strings.TrimPrefix(line, "time="), " ")
		t, err := time.Parse(time.RFC3339Nano, stamp)
		if err == nil && !t.Before(from) {
			return t, true
		}
	}
	return time.Time{}, false
}

// checkNet works out the figures of the network faults and records as
// problems the faults the workers did not come through: a blackhole whose
// worker's calls never failed (a call waited on the silent connection),
// which was never declared dead although it lasted past the threshold, or
// after which the worker never started a job again; a LISTEN silence that
// the listener never noticed or never recovered from.
func (r *run) checkNet(o outcome) netFigures {
	nf := r.measureNet(o)
	missing := func(got []time.Duration, want int, what string) {
		if len(got) < want {
			r.problems = append(r.problems, problem{what: fmt.Sprintf("network faults: %d of %d %s", want-len(got), want, what)})
		}
	}
	missing(nf.failed, nf.blackholes, "blackholed workers never saw a store call fail: a call waited on the silent connection")
	missing(nf.declared, nf.blackholes, "workers blackholed past the dead threshold were never declared dead")
	missing(nf.rejoined, nf.blackholes, "blackholed workers never started a job again once the network returned")
	missing(nf.noticed, nf.silences, "silent LISTEN connections were never noticed by their listener")
	missing(nf.reconnected, nf.silences, "listeners never reconnected once the network returned")
	return nf
}

// reportNet prints the network faults and their figures (checkNet's).
func (r *run) reportNet(w io.Writer, nf netFigures) {
	var parts []string
	for k, n := range r.net.counts {
		parts = append(parts, fmt.Sprintf("%s %d", netNames[k], n))
	}
	fmt.Fprintf(w, "network faults (Toxiproxy): %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(w, "blackholes (%d): the cut-off worker's first call failed after %s; declared dead after %s; its lease passed on after %s; it started a job again %s after the network returned; %d results fenced\n",
		nf.blackholes, spread(nf.failed), spread(nf.declared), spread(nf.leaseMoved), spread(nf.rejoined), nf.fenced)
	fmt.Fprintf(w, "LISTEN silences (%d): listener noticed after %s; reconnected %s after the network returned; %d jobs started by polling meanwhile\n",
		nf.silences, spread(nf.noticed), spread(nf.reconnected), nf.polled)
}

// spread renders durations as "min / median / max (n)", or "never".
func spread(ds []time.Duration) string {
	if len(ds) == 0 {
		return "never"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	r := func(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
	return fmt.Sprintf("%v / %v / %v (min / median / max of %d)", r(s[0]), r(s[len(s)/2]), r(s[len(s)-1]), len(s))
}
