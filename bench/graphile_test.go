package main

import (
	"strings"
	"testing"
	"time"
)

// TestReadProgress: a worker process's "+N" lines count its jobs and its
// last line is its report, which Span folds with the others'.
func TestReadProgress(t *testing.T) {
	progress := make(chan int, 8)
	var r graphileReport
	readProgress(strings.NewReader("+3\n+3\n{\"ran\":7,\"first\":1000000,\"last\":3000000}\n"), progress, &r)
	close(progress)
	got := 0
	for n := range progress {
		got += n
	}
	if got != 6 || r.Ran != 7 {
		t.Fatalf("read progress %d and report %+v, want 6 and 7 jobs run", got, r)
	}
	s := &graphileSystem{last: []graphileReport{r, {Ran: 5, First: 500000, Last: 2000000}, {}}}
	sp, err := s.Span(t.Context())
	if err != nil || sp.n != 12 || !sp.first.Equal(time.UnixMicro(500000)) || !sp.last.Equal(time.UnixMicro(3000000)) {
		t.Fatalf("Span = %+v, %v; want 12 jobs from the earliest first start to the latest completion", sp, err)
	}
	if _, err := (&graphileSystem{last: []graphileReport{{}}}).Span(t.Context()); err == nil {
		t.Error("Span of processes that ran nothing is not an error")
	}
}

// TestSystemList: -systems names known systems, tickwork first and once.
func TestSystemList(t *testing.T) {
	got, err := systemList("graphile, river,river")
	if err != nil || strings.Join(got, ",") != "tickwork,graphile,river" {
		t.Fatalf("systemList = %v, %v", got, err)
	}
	for _, bad := range []string{"sidekiq", "tickwork"} {
		if _, err := systemList(bad); err == nil {
			t.Errorf("systemList(%q) is not an error", bad)
		}
	}
}
