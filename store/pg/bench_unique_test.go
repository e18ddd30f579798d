package pg_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// BenchmarkUniqueEnqueue measures what a unique key on every job costs an
// enqueue: each iteration inserts one batch without keys and one with a
// fresh key per job (none a duplicate), in durable commits of their own,
// and reports both per job and their ratio, measured in the same run on
// the same table. Batches of 1 are Enqueue; 1000 is EnqueueMany, which
// without keys takes COPY.
func BenchmarkUniqueEnqueue(b *testing.B) {
	for _, batch := range []int{1, 1000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s := pgtest.OpenDurable(b, pg.Options{})
			rnd := clockrng.NewRand(1)
			ctx := context.Background()
			fill(b, s, rnd, batch)
			insert := func(jobs []store.NewJob) time.Duration {
				start := time.Now()
				if err := s.InTx(ctx, func(tx store.Tx) error { _, err := tx.InsertJobs(ctx, jobs); return err }); err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			var plain, unique time.Duration
			total, key := 0, 0
			for b.Loop() {
				b.StopTimer()
				without, with := benchJobs(rnd, batch), benchJobs(rnd, batch)
				for i := range with {
					with[i].UniqueKey = "bench-" + strconv.Itoa(key)
					key++
				}
				b.StartTimer()
				plain += insert(without)
				unique += insert(with)
				total += batch
			}
			b.ReportMetric(float64(plain.Nanoseconds())/float64(total), "plain-ns/job")
			b.ReportMetric(float64(unique.Nanoseconds())/float64(total), "unique-ns/job")
			b.ReportMetric(float64(unique)/float64(plain), "unique/plain")
		})
	}
}
