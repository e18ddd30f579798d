package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// -failover needs no database of its own; -seeds is for -failover only.
func TestFailoverOptions(t *testing.T) {
	o, err := parseOptions([]string{"-failover", "-seeds", "3"}, world(nil, false), io.Discard)
	if err != nil || !o.failover || o.seeds != 3 || o.failoverStop != 60*time.Second || o.databaseURL != "" {
		t.Errorf("-failover -seeds 3 without a database: %+v, %v; want it accepted, the stop 60s", o, err)
	}
	for _, args := range [][]string{{"-seeds", "2"}, {"-failover", "-seeds", "0"}, {"-failover", "-failover-stop", "0s"}} {
		if _, err := parseOptions(args, world(nil, true), io.Discard); err == nil || !strings.Contains(err.Error(), "-seeds") {
			t.Errorf("%q: %v; want an error naming -seeds and -failover-stop", args, err)
		}
	}
}

// The cluster is healthy only with every node in the state assigned to
// it, one primary (a lone node: single) and the others secondaries.
func TestClusterHealthy(t *testing.T) {
	two := &cluster{nodes: []*autoctl{{name: "node1"}, {name: "node2"}}}
	one := &cluster{nodes: []*autoctl{{name: "node1"}}}
	for _, c := range []struct {
		c      *cluster
		states []nodeState
		want   bool
	}{
		{two, []nodeState{{"node1", "primary", "primary"}, {"node2", "secondary", "secondary"}}, true},
		{two, []nodeState{{"node1", "secondary", "secondary"}, {"node2", "primary", "primary"}}, true},
		{two, []nodeState{{"node1", "primary", "primary"}}, false},
		{two, []nodeState{{"node1", "wait_primary", "primary"}, {"node2", "catchingup", "secondary"}}, false},
		{two, []nodeState{{"node1", "primary", "primary"}, {"node2", "primary", "primary"}}, false},
		{two, []nodeState{{"node1", "single", "single"}, {"node2", "wait_standby", "wait_standby"}}, false},
		{one, []nodeState{{"node1", "single", "single"}}, true},
		{one, []nodeState{{"node1", "init", "single"}}, false},
	} {
		if got := c.c.healthy(c.states); got != c.want {
			t.Errorf("%d nodes, states %v: healthy %v, want %v", len(c.c.nodes), c.states, got, c.want)
		}
	}
}

// The postmaster's pid is the first line of postmaster.pid; anything else
// is an error naming the data directory.
func TestPostmasterPID(t *testing.T) {
	dir := t.TempDir()
	if _, err := postmasterPID(dir); err == nil {
		t.Error("no postmaster.pid: no error")
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "postmaster.pid"), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("4242\n/tmp/data\n1700000000\n5432\n")
	if pid, err := postmasterPID(dir); pid != 4242 || err != nil {
		t.Errorf("postmasterPID = %d, %v; want 4242", pid, err)
	}
	write("garbage\n")
	if _, err := postmasterPID(dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("a malformed postmaster.pid: %v; want an error naming %s", err, dir)
	}
}

// The watch records when a worker's /readyz first answered not ready after
// the fault and when it was ready again, and a worker that stayed ready
// through a long write outage is a problem.
func TestReadyWatch(t *testing.T) {
	var ready atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !ready.Load() {
			http.Error(w, "not ready: store unavailable", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	steady := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer steady.Close()
	addr := func(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "http://") }
	w := newReadyWatch(map[string]string{"w1": addr(srv), "w2": addr(steady)})
	slots := []*slot{runningSlot("w1"), runningSlot("w2")}
	defer func() {
		for _, s := range slots {
			close(s.done)
		}
	}()
	w.reset(time.Now())
	ready.Store(true)
	w.poll(slots)
	ready.Store(false)
	w.poll(slots)
	if w.allReady(slots) {
		t.Error("allReady while w1 answers 503")
	}
	ready.Store(true)
	w.poll(slots)
	if !w.allReady(slots) {
		t.Error("not allReady once w1 answers 200 again")
	}
	gaps := w.gaps()
	if len(gaps) != 2 || gaps[0].notReady == 0 || gaps[0].ready < gaps[0].notReady || !strings.Contains(gaps[0].reason, "store unavailable") ||
		gaps[1].notReady != 0 {
		t.Fatalf("gaps %+v: want w1 not ready then ready with its reason, w2 ready throughout", gaps)
	}
	r := &run{o: options{poll: 250 * time.Millisecond}}
	r.judgeReadiness(failoverFault{kind: foStop, firstJob: 10 * time.Second, gaps: gaps})
	if len(r.problems) != 1 || !strings.Contains(r.problems[0].what, "w2") {
		t.Errorf("problems %+v: want one, naming w2", r.problems)
	}
	r.problems = nil
	r.judgeReadiness(failoverFault{kind: foPlanned, firstJob: 500 * time.Millisecond, gaps: gaps})
	if len(r.problems) != 0 {
		t.Errorf("an outage shorter than a tick's failure: problems %+v, want none", r.problems)
	}
}

// runningSlot is a slot whose life counts as running until its done is
// closed.
func runningSlot(name string) *slot {
	return &slot{name: name, cmd: &exec.Cmd{}, done: make(chan struct{})}
}

// A process left behind that names the cluster's directory on its command
// line (a postmaster names its data directory) is killed.
func TestKillLeftovers(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", "sleep 30", filepath.Join(dir, "node1"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if n := killLeftovers(dir); n != 1 {
		t.Errorf("killLeftovers = %d, want 1", n)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the leftover process still runs")
	}
	if n := killLeftovers(dir); n != 0 {
		t.Errorf("killLeftovers again = %d, want 0", n)
	}
}
