package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestInterleaveIsDeterministic runs seeds with -store pg -interleave
// -check-determinism: each twice, on real concurrent transactions, and
// every property and both trace hashes must hold. The summary lists the
// marks of interleaving, which serial runs leave out.
func TestInterleaveIsDeterministic(t *testing.T) {
	long.Test(t, "interleaved seeds on PostgreSQL, each run twice")
	url := pgtest.URL(t)
	status, out, errOut := runArgs(t, "-store", "pg", "-interleave", "-database-url", url, "-seeds", "6", "-duration", "5s", "-parallel", "2", "-check-determinism")
	if status != 0 || !strings.Contains(out, "seeds 6 (from 1), failed 0,") {
		t.Fatalf("simulate -store pg -interleave: exit status %d\n%s%s", status, out, errOut)
	}
	overlap := regexp.MustCompile(`interleaved: two processes' transactions open +([0-9]+)`).FindStringSubmatch(out)
	if overlap == nil || overlap[1] == "0" {
		t.Fatalf("no seed overlapped transactions of two processes:\n%s", out)
	}
	_, serial, _ := runArgs(t, "-seeds", "2", "-parallel", "1")
	if strings.Contains(serial, "interleaved:") {
		t.Fatalf("a serial run lists the marks of interleaving:\n%s", serial)
	}
}

// TestInterleaveReplayShowsRoundTrips: -seed N -v replays one interleaved
// seed, each round trip a line naming its connection and the transactions
// open as it goes, and twice the same.
func TestInterleaveReplayShowsRoundTrips(t *testing.T) {
	long.Test(t, "replays an interleaved seed on PostgreSQL twice")
	url := pgtest.URL(t)
	args := []string{"-store", "pg", "-interleave", "-database-url", url, "-seed", "2", "-duration", "5s", "-v"}
	s1, a, e1 := runArgs(t, args...)
	s2, b, _ := runArgs(t, args...)
	if s1 != 0 || s1 != s2 || a != b {
		t.Fatalf("two replays differ or fail (status %d, %d)\n%s%s", s1, s2, a, e1)
	}
	if !regexp.MustCompile(`(?m) pg release  w[0-9]#[0-9]+ +.*\[open [^]]*,[^]]*\]$`).MatchString(a) {
		t.Fatalf("no round trip released while two transactions were open:\n%.2000s", a)
	}
}

// TestInterleaveNeedsStorePG: -interleave alone is a usage error.
func TestInterleaveNeedsStorePG(t *testing.T) {
	status, _, errOut := runArgs(t, "-interleave", "-seeds", "1")
	if status != 2 || !strings.Contains(errOut, "add -store pg") {
		t.Fatalf("exit status %d, stderr %q", status, errOut)
	}
}

// TestInterleaveRegressionSeeds replays the interleaved seeds that once
// failed: 1289 with the default chaos phase (a worker being declared dead
// took the lease: store/pg's lease write now share-locks the worker row),
// and 131 with 5 s of chaos (a drain tick's round trip was paused past
// the call's deadline, so the call outlasted ShutdownCallTimeout and the
// drain deadline's cancel came after property 20's bound: the simulator
// now holds round trips to their call's deadline, as the call's context
// does), and 289 with 10 s (the runner stepped a second queue's add-back
// at quiescence while the first one's store call was out). Seeds 117 and 198 with 10 s of chaos (an operator's
// cancel of a job another transaction had ended) are among make
// simulate-pg-ci's seeds (1 to 200, -duration 10s), which make test runs:
// replaying them here too cost the unit step about 20 s.
func TestInterleaveRegressionSeeds(t *testing.T) {
	long.Test(t, "replays interleaved seeds on PostgreSQL")
	url := pgtest.URL(t)
	for _, seed := range [][]string{{"-seed", "1289"}, {"-seed", "131", "-duration", "5s"}, {"-seed", "289", "-duration", "10s"}} {
		args := append([]string{"-store", "pg", "-interleave", "-database-url", url}, seed...)
		if status, out, errOut := runArgs(t, args...); status != 0 {
			t.Errorf("%v: exit status %d\n%s%s", seed, status, out, errOut)
		}
	}
}
