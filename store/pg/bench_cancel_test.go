package pg_test

import (
	"context"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// BenchmarkCancelCheck measures what the cancel check adds to a job pass:
// passes that complete splitBatch jobs and reserve as many alternate, in
// one run, with and without asking which of splitBatch other executing
// jobs were cancelled (a worker asks at most ten times per poll interval).
// It reports each kind's time per pass and their ratio.
func BenchmarkCancelCheck(b *testing.B) {
	s := pgtest.OpenDurable(b, pg.Options{})
	worker := registerBenchWorker(b, s)
	rnd := clockrng.NewRand(5)
	fill(b, s, rnd, splitBatch)
	executing := passTick(b, s, worker, nil, splitBatch) // never completed: the jobs the checks ask about
	fill(b, s, rnd, 10*splitBatch)
	running := passTick(b, s, worker, nil, splitBatch)
	var spent [2]time.Duration // without, with the check
	passes := 0
	for b.Loop() {
		for _, check := range [2]bool{passes%2 == 0, passes%2 != 0} { // alternate which goes first
			if len(running) < splitBatch {
				b.StopTimer()
				fill(b, s, rnd, 100*splitBatch)
				b.StartTimer()
			}
			var asked []ulid.ULID
			if check {
				asked = executing
			}
			start := time.Now()
			running = checkedPass(b, s, worker, running, asked)
			spent[btoi(check)] += time.Since(start)
		}
		passes++
	}
	without, with := float64(spent[0].Microseconds())/float64(passes), float64(spent[1].Microseconds())/float64(passes)
	b.ReportMetric(without, "µs/pass")
	b.ReportMetric(with, "µs/checked-pass")
	b.ReportMetric(with/without, "checked/plain")
}

// checkedPass completes running, asks about asked and reserves the next
// batch in one job pass; nothing it asks about may be cancelled.
func checkedPass(b *testing.B, s *pg.Store, worker ulid.ULID, running, asked []ulid.ULID) []ulid.ULID {
	res, err := store.RunJobPass(context.Background(), s, store.JobPass{Worker: worker, Executing: asked,
		Complete: []store.Completion{{Worker: worker, IDs: running}}, Queues: []string{"bench"}, Limit: splitBatch})
	if err != nil || res.Dead || len(res.Fenced) > 0 || len(res.Cancelled) > 0 {
		b.Fatalf("job pass: dead %v, fenced %v, cancelled %v, %v", res.Dead, res.Fenced, res.Cancelled, err)
	}
	return jobIDs(res.Reserved)
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}
