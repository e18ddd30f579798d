package sim

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

var pgSeeds = flag.Int("pg-seeds", 50, "seeds TestPostgresTracesMatchMem runs against PostgreSQL")

// pgShards is how many stores TestPostgresTracesMatchMem runs its seeds on
// at once. A seed on PostgreSQL waits on round trips for about half its
// time, so shards on a schema each fill the two cores the serial run
// left half idle.
const pgShards = 4

// TestPostgresTracesMatchMem runs seeds against PostgreSQL (store/pg through
// DiffBackend, its clock supplied by the simulator) and requires the very
// trace the in-memory store gives: same rows, same times, same decisions.
// A difference shows the first line where the traces part. Shard k runs
// the seeds k+1, k+1+pgShards, … one after another on a store of its own.
func TestPostgresTracesMatchMem(t *testing.T) {
	seeds := long.Count(*pgSeeds, 3)
	for k := range min(seeds, pgShards) {
		t.Run(fmt.Sprint("shard", k), func(t *testing.T) {
			t.Parallel()
			open := pgtest.Recycler(t)
			viaPG := func(now func() time.Time) (Backend, error) { return DiffBackend(open(t, now)), nil }
			for seed := uint64(k + 1); seed <= uint64(seeds); seed += pgShards {
				tracesMatch(t, seed, viaPG)
			}
		})
	}
}

// tracesMatch runs seed on the store viaPG opens and on store/mem and
// fails t where the traces part, or where the seed fails on both.
func tracesMatch(t *testing.T, seed uint64, viaPG func(now func() time.Time) (Backend, error)) {
	t.Helper()
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
