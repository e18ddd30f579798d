package pg_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store/pg"
)

// coldKeys is how many jobs of keys of their own end the keyed backlog.
const coldKeys = 10

// TestKeyedReservationStaysBoundedWithAMillionRows: a queue limited to 2
// jobs per key whose million waiting jobs all but the last coldKeys share
// one hot key, already at its limit (the fixture's running jobs have it).
// Reserving 100 must take the cold jobs behind the backlog while reading
// about one index entry per key with available jobs, not the backlog: the
// skip scan of jobs_key_available_idx (migration 0014). Generic and custom
// plans, without statistics and with. Without the per-key limit, the
// plain reservation reads about limit entries of the keyed backlog.
func TestKeyedReservationStaysBoundedWithAMillionRows(t *testing.T) {
	long.Test(t, "builds a million rows")
	t.Parallel()
	// Every running and waiting job has the hot key but the last
	// coldKeys waiting ones, which have keys of their own.
	s := shapedMillionRows(t, backlogShape{
		runningCols: ", partition_key", runningVals: ", 'hot'",
		backlogCols: ", partition_key",
		backlogVals: fmt.Sprintf(", CASE WHEN g > %d THEN 'cold-' || {id} ELSE 'hot' END", waiting-coldKeys),
		after:       []string{`VACUUM {schema}.jobs`},
		finished:    1000,
	})
	for _, stats := range []string{"no statistics", "fresh statistics"} {
		if stats == "fresh statistics" {
			analyze(t, s)
		}
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			o := planOptions{mode: mode, guarded: true, analyze: true, setup: []string{
				pg.SQL(s, `INSERT INTO {schema}.queues (name, key_limit) VALUES ('q', 2)`),
				`SELECT set_config('tickwork.limit_room', '{"q": -1}', true)`,
			}}
			plan := explainPlan(t, s, o, pg.KeyedReserveSQL(s), reserveArgs)
			keyed, plain := entriesRead(plan, "jobs_key_available_idx"), entriesRead(plan, "jobs_available_idx")
			running := entriesRead(plan, "jobs_running_idx")
			// jobs_keyed_available_idx holds the same rows in reservation
			// order: a cold key's first rows looked up there, filtered by
			// key, come after the hot key's whole backlog.
			inOrder := entriesRead(plan, "jobs_keyed_available_idx")
			if keyed > 10*(coldKeys+2) || plain > 0 || running > 400 || inOrder > 0 {
				t.Errorf("reserving 100 past a hot key's backlog of %d, %s, %s: read %.0f keyed, %.0f in reservation order, %.0f available and %.0f running entries\n%s",
					waiting, stats, mode, keyed, inOrder, plain, running, plan)
			}
			if reserved := plan.ActualRows; reserved != coldKeys {
				t.Errorf("reserved %.0f jobs past the hot key's backlog, %s, %s; want the %d cold ones\n%s", reserved, stats, mode, coldKeys, plan)
			}
			// jobs_available_idx is the scan of the queues without a per-key
			// limit, here none: it reads nothing (plain above).
			if bad := countingRunning(boundedJobScans(plan, "jobs_key_available_idx", "jobs_available_idx", "jobs_keyed_available_idx", "jobs_pkey", "jobs_running_idx")); len(bad) > 0 {
				t.Errorf("keyed reservation, %s, %s: %s\n%s", stats, mode, strings.Join(bad, "; "), plan)
			}
			// Without a per-key limit the keyed rows are reserved in
			// reservation order through jobs_keyed_available_idx: about
			// limit entries of the million.
			plan = explainPlan(t, s, planOptions{mode: mode, guarded: true, analyze: true}, pg.PlainReserveSQL(s), reserveArgs)
			if read := entriesRead(plan, "jobs_keyed_available_idx"); read > 200 || plan.ActualRows != 100 {
				t.Errorf("reserving 100 of a keyed backlog without a per-key limit, %s, %s: read %.0f entries, reserved %.0f\n%s",
					stats, mode, read, plan.ActualRows, plan)
			}
			bad := boundedJobScans(plan, "jobs_keyed_available_idx", "jobs_available_idx", "jobs_pkey")
			if bad = append(bad, notSortedBeforeLimit(plan, "jobs_keyed_available_idx")...); len(bad) > 0 {
				t.Errorf("plain reservation of keyed rows, %s, %s: %s\n%s", stats, mode, strings.Join(bad, "; "), plan)
			}
		}
	}
}
