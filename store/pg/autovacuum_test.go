package pg_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestJobsAreVacuumedEveryFewThousandJobs checks the jobs table's
// autovacuum trigger, as the server computes it (threshold + scale factor
// × rows, each from the table's settings or else the server's), with a
// million finished rows kept: dead index entries at the head of the
// reservation's index must be removed every few thousand jobs, not once a
// fifth of the history is dead, and the vacuum must not be throttled.
func TestJobsAreVacuumedEveryFewThousandJobs(t *testing.T) {
	t.Parallel() // a schema of its own
	s := pgtest.Open(t, nil)
	var opts []string
	q := "SELECT coalesce(reloptions, '{}') FROM pg_class WHERE oid = $1::regclass"
	if err := s.Pool().QueryRow(t.Context(), q, pgx.Identifier{s.Schema(), "jobs"}.Sanitize()).Scan(&opts); err != nil {
		t.Fatal(err)
	}
	setting := func(name string) float64 {
		t.Helper()
		for _, o := range opts {
			if k, v, _ := strings.Cut(o, "="); k == name {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("jobs reloption %s: %v", o, err)
				}
				return f
			}
		}
		var v string
		if err := s.Pool().QueryRow(t.Context(), "SELECT current_setting($1)", name).Scan(&v); err != nil {
			t.Fatal(err)
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "ms"), 64)
		if err != nil {
			t.Fatalf("server setting %s = %q: %v", name, v, err)
		}
		return f
	}
	const rows, wantAtMost = 1_000_000, 10_000 // dead rows; about two per job
	trigger := setting("autovacuum_vacuum_threshold") + setting("autovacuum_vacuum_scale_factor")*rows
	if trigger > wantAtMost {
		t.Errorf("with %d rows autovacuum waits for %.0f dead rows in jobs (reloptions %v), want at most %d", rows, trigger, opts, wantAtMost)
	}
	if d := setting("autovacuum_vacuum_cost_delay"); d != 0 {
		t.Errorf("autovacuum of jobs sleeps %v ms per cost limit (reloptions %v), want no delay", d, opts)
	}
}
