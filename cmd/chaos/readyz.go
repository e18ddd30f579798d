package main

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// readyWatch polls each worker's /readyz during the failover scenario and
// records, for the fault under way, when it first answered not ready and
// when it was ready again after that.
type readyWatch struct {
	addrs  map[string]string // worker name → host:port of its ops server
	client *http.Client
	since  time.Time
	seen   map[string]*readyGap
}

// readyGap is one worker's /readyz around a fault, as offsets from it;
// zero when it did not happen.
type readyGap struct {
	worker          string
	notReady, ready time.Duration
	reason          string // the first not-ready answer
}

func newReadyWatch(addrs map[string]string) *readyWatch {
	return &readyWatch{addrs: addrs, client: &http.Client{Timeout: 500 * time.Millisecond}, seen: map[string]*readyGap{}}
}

// reset starts watching a new fault injected at since.
func (w *readyWatch) reset(since time.Time) {
	w.since, w.seen = since, map[string]*readyGap{}
}

// poll asks every running worker once.
func (w *readyWatch) poll(slots []*slot) {
	for _, s := range slots {
		if !s.alive() || s.stopped {
			continue
		}
		ok, reason := w.ask(s.name)
		g := w.seen[s.name]
		if g == nil {
			g = &readyGap{worker: s.name}
			w.seen[s.name] = g
		}
		at := time.Since(w.since)
		switch {
		case !ok && g.notReady == 0:
			g.notReady, g.reason = at, reason
		case ok && g.notReady > 0 && g.ready == 0:
			g.ready = at
		}
	}
}

// ask returns whether the worker answers ready, and its answer otherwise.
func (w *readyWatch) ask(name string) (bool, string) {
	resp, err := w.client.Get("http://" + w.addrs[name] + "/readyz")
	if err != nil {
		return false, err.Error()
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 512)
	n, _ := resp.Body.Read(buf)
	b.Write(buf[:n])
	return resp.StatusCode == http.StatusOK, strings.TrimSpace(b.String())
}

// allReady reports whether every running worker's latest answer since the
// fault was ready.
func (w *readyWatch) allReady(slots []*slot) bool {
	for _, s := range slots {
		g := w.seen[s.name]
		if g == nil || (g.notReady > 0 && g.ready == 0) {
			return false
		}
	}
	return true
}

// gaps returns what was seen of each worker, by name.
func (w *readyWatch) gaps() []readyGap {
	var out []readyGap
	for name := range w.addrs {
		if g := w.seen[name]; g != nil {
			out = append(out, *g)
		}
	}
	slices.SortFunc(out, func(a, b readyGap) int { return cmp.Compare(a.worker, b.worker) })
	return out
}

// judgeReadiness makes a problem of a worker whose /readyz hid a write
// outage: from the fault to the first job completed on the new primary
// took longer than two poll intervals plus a second (time for a tick to
// fail), yet the worker never answered not ready.
func (r *run) judgeReadiness(f failoverFault) {
	if f.firstJob <= 2*r.o.poll+time.Second {
		return
	}
	for _, g := range f.gaps {
		if g.notReady == 0 {
			r.problems = append(r.problems, problem{what: fmt.Sprintf("%s: worker %s answered /readyz ready throughout a write outage of %v",
				failoverNames[f.kind], g.worker, f.firstJob.Round(time.Millisecond))})
		}
	}
}
