package pg_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store/pg"
)

// coldSequences is how many sequences of one job each end the sequenced
// backlog.
const coldSequences = 10

// TestSequencedReservationStaysBoundedWithAMillionRows: the million
// waiting jobs of the fixture, all but the last coldSequences, form one
// sequence halted by a job that failed for good before them; the last
// ones head sequences of their own. Reserving 100 must take the cold
// heads while reading about one entry per key of
// jobs_sequence_available_idx, one probe of jobs_sequence_open_idx per
// key, and none of the halted backlog (migration 0015). Generic and
// custom plans, without statistics and with.
func TestSequencedReservationStaysBoundedWithAMillionRows(t *testing.T) {
	long.Test(t, "builds a million rows")
	t.Parallel()
	// The backlog in enqueue order is sequence hot but for the last
	// coldSequences jobs, each at the head of a sequence of its own; a job
	// of the history failed for good at hot's place 0.
	s := shapedMillionRows(t, backlogShape{
		backlogCols: ", sequence_key, sequence_pos",
		backlogVals: fmt.Sprintf(", CASE WHEN g > %[1]d THEN 'cold-' || {id} ELSE 'hot' END, CASE WHEN g > %[1]d THEN 1 ELSE g END",
			waiting-coldSequences),
		after: []string{
			`UPDATE {schema}.jobs SET status = 'failed', failed_at = now(), failed_reason = 'for good', completed_at = NULL,
				sequence_key = 'hot', sequence_pos = 0
				WHERE id = (SELECT id FROM {schema}.jobs WHERE status = 'completed' ORDER BY id LIMIT 1)`,
			`VACUUM {schema}.jobs`,
		},
		finished: 1000,
	})
	for _, stats := range []string{"no statistics", "fresh statistics"} {
		if stats == "fresh statistics" {
			analyze(t, s)
		}
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			o := planOptions{mode: mode, guarded: true, analyze: true}
			plan := explainPlan(t, s, o, pg.SequencedPlainReserveSQL(s), reserveArgs)
			keys, open := entriesRead(plan, "jobs_sequence_available_idx"), entriesRead(plan, "jobs_sequence_open_idx")
			plain := entriesRead(plan, "jobs_available_idx")
			if keys > 4*(coldSequences+1) || open > 2*(coldSequences+1) || plain > 0 {
				t.Errorf("reserving 100 past a halted sequence of %d, %s, %s: read %.0f sequence, %.0f open and %.0f available entries\n%s",
					waiting, stats, mode, keys, open, plain, plan)
			}
			if reserved := plan.ActualRows; reserved != coldSequences {
				t.Errorf("reserved %.0f jobs past the halted sequence, %s, %s; want the %d cold heads\n%s", reserved, stats, mode, coldSequences, plan)
			}
			bad := boundedJobScans(plan, "jobs_sequence_available_idx", "jobs_sequence_open_idx", "jobs_sequence_running_idx",
				"jobs_available_idx", "jobs_keyed_available_idx", "jobs_pkey")
			if len(bad) > 0 {
				t.Errorf("sequenced reservation, %s, %s: %s\n%s", stats, mode, strings.Join(bad, "; "), plan)
			}
		}
	}
}
