package sim

import (
	"flag"
	"testing"
	"time"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

var pgSeeds = flag.Int("pg-seeds", 50, "seeds TestPostgresTracesMatchMem runs against PostgreSQL")

// TestPostgresTracesMatchMem runs seeds against PostgreSQL (store/pg through
// DiffBackend, its clock supplied by the simulator) and requires the very
// trace the in-memory store gives: same rows, same times, same decisions.
// A difference shows the first line where the traces part.
func TestPostgresTracesMatchMem(t *testing.T) {
	open := pgtest.Recycler(t)
	viaPG := func(now func() time.Time) (Backend, error) { return DiffBackend(open(t, now)), nil }
	for seed := uint64(1); seed <= uint64(long.Count(*pgSeeds, 3)); seed++ {
		got, diff := RunCompared(Draw(seed, FaultOverrides{}), viaPG)
		if got.Err != nil {
			t.Fatalf("seed %d on PostgreSQL: %v", seed, got.Err)
		}
		if diff != "" {
			t.Fatalf("seed %d: PostgreSQL and memory traces differ (memory first):\n%s\nreplay: go run ./cmd/simulate -seed %d -v",
				seed, diff, seed)
		}
		if got.Failed() {
			t.Fatalf("seed %d failed on both stores: %s", seed, got.Report)
		}
	}
}
