package pg_test

import (
	"strings"
	"testing"

	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestPlansStayBoundedWithStaleStatistics explains every plan case, as
// the store sends it, over rows analyzed while they were all available
// and then moved on (running, completed, failed, cancelled) with no
// ANALYZE since, as with autovacuum off: the statistics then call the
// indexes of finished and running rows empty, and an index believed
// empty looks free to read whole or to sort.
func TestPlansStayBoundedWithStaleStatistics(t *testing.T) {
	s := pgtest.Open(t, nil)
	for _, q := range []string{`
		INSERT INTO {schema}.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at)
		SELECT gen_random_uuid(), 'q', '{}', '{}', 'available', 0, '2000-01-01Z', '2000-01-01Z'
		FROM generate_series(1, 40000)`,
		`VACUUM ANALYZE {schema}.jobs`,
		`UPDATE {schema}.jobs SET status = 'running', started_at = '2000-01-01Z', started_by = '00000000-0000-0000-0000-0000000000a1'
		 WHERE id < '40000000-0000-0000-0000-000000000000'`,
		`UPDATE {schema}.jobs SET status = 'completed', completed_at = '2000-01-02Z'
		 WHERE id >= '40000000-0000-0000-0000-000000000000' AND id < '80000000-0000-0000-0000-000000000000'`,
		`UPDATE {schema}.jobs SET status = 'failed', failed_at = '2000-01-02Z', failed_reason = 'boom'
		 WHERE id >= '80000000-0000-0000-0000-000000000000' AND id < 'c0000000-0000-0000-0000-000000000000'`,
		`UPDATE {schema}.jobs SET status = 'cancelled', cancelled_at = '2000-01-02Z'
		 WHERE id >= 'c0000000-0000-0000-0000-000000000000'`,
	} {
		if _, err := s.Pool().Exec(t.Context(), pg.SQL(s, q)); err != nil {
			t.Fatal(err)
		}
	}
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		for _, c := range planCases {
			plan := explainPlan(t, s, c.options(s, mode), c.sql(s), c.args)
			if bad := c.check(plan); len(bad) > 0 {
				t.Errorf("%s, stale statistics, %s: %s\n%s", c.name, mode, strings.Join(bad, "; "), plan)
			}
		}
	}
}
