package pg_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store/pg"
)

// deadRow is a history row (1008) made failed, of queue q, which
// dead-letters to q.dead.
const deadRow = "'00000000-0000-0000-0000-0000000003f0'"

// TestDeadLetterStaysBoundedWithAMillionRows: with a million history rows
// and a million available ones in the queue, moving a failed row to its
// queue's dead-letter queue reads it and the queue's row by primary key
// and changes one row: never the backlog nor the history.
func TestDeadLetterStaysBoundedWithAMillionRows(t *testing.T) {
	long.Test(t, "builds two million rows")
	t.Parallel()
	s := shapedMillionRows(t, backlogShape{})
	for _, q := range []string{
		`UPDATE {schema}.jobs SET status = 'failed', failed_at = now(), completed_at = NULL WHERE id = ` + deadRow,
		`INSERT INTO {schema}.queues (name, dead_letter) VALUES ('q', 'q.dead')`,
		`VACUUM {schema}.jobs`,
	} {
		if _, err := s.Pool().Exec(t.Context(), strings.ReplaceAll(q, "{schema}", pgx.Identifier{s.Schema()}.Sanitize())); err != nil {
			t.Fatalf("make the dead row: %v\n%s", err, q)
		}
	}
	for _, stats := range []string{"no statistics", "fresh statistics"} {
		if stats == "fresh statistics" {
			analyze(t, s)
		}
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			plan := explainPlan(t, s, planOptions{mode: mode, guarded: true, analyze: true}, pg.DeadLetterSQL(s), deadRow)
			bad := boundedJobScans(plan, "jobs_pkey")
			if read := rowsReadOf(plan, "jobs", "queues"); read > 20 {
				bad = append(bad, fmt.Sprintf("read %.0f rows of jobs and queues to move one", read))
			}
			if len(bad) > 0 {
				t.Errorf("dead-letter a job, %s, %s: %s\n%s", stats, mode, strings.Join(bad, "; "), plan)
			}
		}
	}
}
