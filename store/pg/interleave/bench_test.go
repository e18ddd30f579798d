package interleave_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/interleave"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// BenchmarkGatedRoundTrip prints what a round trip costs when the
// controller interleaves two actors, against the same round trips sent
// straight through, measured in the same run. It budgets the interleaved
// simulation, not production: production has no gate.
func BenchmarkGatedRoundTrip(b *testing.B) {
	ctx := context.Background()
	url := pgtest.URL(b)
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close(ctx)
	ctl := interleave.New(admin, clockrng.NewRand(1), interleave.Options{})
	open := func(g pg.Gate) *pg.Store {
		s, err := pg.Open(ctx, url, pg.Options{Gate: g})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(s.Close)
		return s
	}
	plain, actors := open(nil), map[string]*pg.Store{"a": open(ctl.Gate("a")), "b": open(ctl.Gate("b"))}
	selects := func(s *pg.Store, n int) {
		for range n {
			if _, err := s.Pool().Exec(ctx, "SELECT 1"); err != nil {
				b.Error(err)
				return
			}
		}
	}
	b.ResetTimer()
	start := time.Now()
	selects(plain, b.N)
	straight := time.Since(start)
	start = time.Now()
	for label, s := range actors {
		ctl.Go(label, func() { selects(s, (b.N+1)/2) })
	}
	if err := ctl.Run(ctx); err != nil {
		b.Fatal(err)
	}
	gated := time.Since(start)
	n := float64(2 * ((b.N + 1) / 2))
	b.ReportMetric(float64(straight.Nanoseconds())/float64(b.N), "ns/straight-rt")
	b.ReportMetric(float64(gated.Nanoseconds())/n, "ns/gated-rt")
	b.ReportMetric((float64(gated)/n)/(float64(straight)/float64(b.N)), "gated/straight")
}
