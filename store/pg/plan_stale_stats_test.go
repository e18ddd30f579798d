package pg_test

import (
	"strings"
	"testing"

	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestCancelCheckProbesWhenStatisticsSayEmpty: the job pass's cancel
// check reads the executing jobs by primary key even while
// jobs_ended_idx's statistics say it is empty, as they did since the
// last ANALYZE (autovacuum off) before a bulk cancel. The index then
// looks free to read whole, and after a bulk cancel of a million jobs
// the check read every cancelled row on each pass (make bench-bulk
// -action cancel: ticks' p99 from 23 ms to 771 ms).
func TestCancelCheckProbesWhenStatisticsSayEmpty(t *testing.T) {
	s := pgtest.Open(t, nil)
	// Statistics taken while every row was available, and so none in
	// jobs_ended_idx; then every row cancelled, as a bulk cancel does.
	for _, q := range []string{`
		INSERT INTO {schema}.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at)
		SELECT gen_random_uuid(), 'q', '{}', '{}', 'available', 0, '2000-01-01Z', '2000-01-01Z'
		FROM generate_series(1, 20000)`,
		`VACUUM ANALYZE {schema}.jobs`,
		`UPDATE {schema}.jobs SET status = 'cancelled', cancelled_at = '2000-01-02Z'`,
	} {
		if _, err := s.Pool().Exec(t.Context(), pg.SQL(s, q)); err != nil {
			t.Fatal(err)
		}
	}
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		plan := explainPlan(t, s, planOptions{mode: mode, guarded: true, analyze: true}, pg.CancelledSQL(s),
			"'{00000000-0000-0000-0000-000000000002,00000000-0000-0000-0000-000000000004}'")
		if read := entriesRead(plan, "jobs_ended_idx"); read > 0 {
			t.Errorf("%s: the cancel check read %.0f entries of jobs_ended_idx for two ids\n%s", mode, read, plan)
		}
		if bad := boundedJobScans(plan, "jobs_pkey"); len(bad) > 0 {
			t.Errorf("%s: %s\n%s", mode, strings.Join(bad, "; "), plan)
		}
	}
}
