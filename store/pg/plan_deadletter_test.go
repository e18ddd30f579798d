package pg_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/store/pg"
)

// deadRow is a history row (1008) made failed, of queue q, which
// dead-letters to q.dead.
const deadRow = "'00000000-0000-0000-0000-0000000003f0'"

// deadLetterStaysBounded: with a million history rows and a million
// available ones in the queue, moving a failed row to its queue's
// dead-letter queue reads it and the queue's row by primary key and
// changes one row: never the backlog nor the history. The row is made
// failed and q given its dead-letter queue in the explained transaction,
// rolled back, so that TestPlansStayBoundedWithAMillionRows's fixture
// serves (building another cost as much as the rest of that test).
func deadLetterStaysBounded(t *testing.T, s *pg.Store, stats, mode string) {
	t.Helper()
	o := planOptions{mode: mode, guarded: true, analyze: true, setup: []string{
		pg.SQL(s, `UPDATE {schema}.jobs SET status = 'failed', failed_at = now(), completed_at = NULL WHERE id = `+deadRow),
		pg.SQL(s, `INSERT INTO {schema}.queues (name, dead_letter) VALUES ('q', 'q.dead')`),
	}}
	plan := explainPlan(t, s, o, pg.DeadLetterSQL(s), deadRow)
	bad := boundedJobScans(plan, "jobs_pkey")
	if read := rowsReadOf(plan, "jobs", "queues"); read > 20 {
		bad = append(bad, fmt.Sprintf("read %.0f rows of jobs and queues to move one", read))
	}
	moved := 0.0
	plan.walk(nil, func(n planNode, _ []planNode) {
		if n.NodeType == "ModifyTable" && n.Relation == "jobs" {
			moved += n.ActualRows
		}
	})
	if moved != 1 {
		bad = append(bad, fmt.Sprintf("moved %.0f rows, want the failed one", moved))
	}
	if len(bad) > 0 {
		t.Errorf("dead-letter a job, %s, %s: %s\n%s", stats, mode, strings.Join(bad, "; "), plan)
	}
}
