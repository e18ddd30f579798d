package pg_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store/pg"
)

// Ids of the dependency fixture: P0 (running) has the million waiting
// jobs of the backlog as children but for three of them, which wait for
// running job 4; F, a finished row, failed and still awaited, has three
// more.
const (
	bigParent    = "'00000000-0000-0000-0000-000000000002'"
	smallParent  = "'00000000-0000-0000-0000-000000000004'"
	failedParent = "'00000000-0000-0000-0000-0000000003ef'" // 1007: of the history
)

// TestDependenciesStayBoundedWithAMillionRows: with the million-row
// backlog waiting for one parent, completing a parent of three children,
// finding the ended parents the leader settles, locking a failed parent's
// children, writing a settled child, retention and a retry read jobs and
// job_waits through index scans bounded by a condition, and read about as
// many rows as they change: never the waiting backlog nor the history.
func TestDependenciesStayBoundedWithAMillionRows(t *testing.T) {
	long.Test(t, "builds two million rows")
	t.Parallel()
	// The backlog waits for P0 but its first three jobs, which wait for
	// job 4, and its last three, which wait for F.
	s := shapedMillionRows(t, backlogShape{
		status:      "waiting",
		backlogCols: ", parents",
		backlogVals: fmt.Sprintf(`, CASE WHEN g <= 3 THEN ARRAY[%s::uuid] WHEN g > %d THEN ARRAY[%s::uuid] ELSE ARRAY[%s::uuid] END`,
			smallParent, waiting-3, failedParent, bigParent),
		after: []string{
			`INSERT INTO {schema}.job_waits (parent, child) SELECT parents[1], id FROM {schema}.jobs WHERE status = 'waiting'`,
			`UPDATE {schema}.jobs SET status = 'failed', failed_at = completed_at, completed_at = NULL WHERE id = ` + failedParent,
			`UPDATE {schema}.jobs SET awaited = true WHERE id IN (` + bigParent + `, ` + smallParent + `, ` + failedParent + `)`,
			`VACUUM {schema}.jobs`,
		},
	})
	cases := []struct {
		name    string
		sql     string
		args    string
		guarded bool
		indexes []string
		changes float64 // the rows the statement returns or changes
	}{
		// Sent guarded, as the job pass sends it; its deleting part
		// (queues without history) probes jobs_next_attempt_idx by id.
		{"complete a parent of three", pg.CompleteSQL(s), "NULL, '{" + strings.Trim(smallParent, "'") + "}', " + liveWorker, true,
			[]string{"jobs_pkey", "jobs_next_attempt_idx"}, 1},
		{"find the ended parents", pg.EndedParentsSQL(s), "", true, []string{"jobs_awaited_ended_idx"}, 1},
		{"lock a failed parent's children", pg.ChildrenSQL(s), "'{" + strings.Trim(failedParent, "'") + "}'", true, []string{"jobs_pkey"}, 3},
		{"write a settled child", pg.WriteSettledSQL(s), "'00000000-0000-0000-0000-0000000f4628', 'cancelled', NULL, NULL, now(), 'parent failed'",
			true, []string{"jobs_pkey"}, 1},
		{"delete old jobs", pg.DeleteOldJobsSQL(s), "NULL, '30 days', 2000", true, []string{"jobs_ended_idx", "jobs_pkey", "jobs_next_attempt_idx", "jobs_callback_idx"}, 2000},
		{"insert a retry", pg.InsertNextSQL(s),
			"NULL, '{00000000-0000-0000-0000-000000000006}', '{00000000-0000-0000-0000-0000ffffffff}', 'scheduled', '5 seconds', 1, 0",
			false, []string{"jobs_pkey"}, 1},
	}
	for _, stats := range []string{"no statistics", "fresh statistics"} {
		if stats == "fresh statistics" {
			analyze(t, s)
		}
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			for _, c := range cases {
				args := c.args
				sql := c.sql
				if args == "" {
					sql, args = strings.Replace(sql, "ORDER BY id", "ORDER BY id LIMIT $1", 1), "1000"
				}
				plan := explainPlan(t, s, planOptions{mode: mode, guarded: c.guarded, analyze: true}, sql, args)
				// The ended parents are all of their small index.
				bad := slices.DeleteFunc(boundedJobScans(plan, c.indexes...), func(s string) bool {
					return s == "index scan of all of jobs_awaited_ended_idx"
				})
				bad = append(bad, boundedWaitScans(plan)...)
				if read := rowsRead(plan); read > 10*c.changes+20 {
					bad = append(bad, fmt.Sprintf("read %.0f rows of jobs and job_waits to change about %.0f", read, c.changes))
				}
				if len(bad) > 0 {
					t.Errorf("%s, %s, %s: %s\n%s", c.name, stats, mode, strings.Join(bad, "; "), plan)
				}
			}
			releasePlansStayBounded(t, s, stats+", "+mode, mode)
		}
	}
}

// releasePlansStayBounded: a completion calls release_children only when
// a job it completed is awaited, and the function's statement then reads
// job_waits and jobs through index scans bounded by a condition, about as
// many rows as it changes. EXPLAIN cannot reach a function's statements:
// auto_explain reports them.
func releasePlansStayBounded(t *testing.T, s *pg.Store, what, mode string) {
	t.Helper()
	for _, c := range []struct {
		name     string
		id       string
		releases int // statements of release_children run
	}{
		{"a parent of three", smallParent, 1},
		{"a job nobody waits for", "'00000000-0000-0000-0000-000000000006'", 0},
	} {
		plans := autoExplained(t, s, prepared(planOptions{mode: mode, guarded: true}, pg.CompleteSQL(s)),
			[]string{"EXECUTE tw_plan(NULL, '{" + strings.Trim(c.id, "'") + "}', " + liveWorker + ")"})
		releases := 0
		for _, p := range plans {
			if !strings.Contains(p.Query, "DELETE FROM job_waits") {
				continue
			}
			releases++
			bad := append(boundedJobScans(p.Plan, "jobs_pkey"), boundedWaitScans(p.Plan)...)
			if read := rowsRead(p.Plan); read > 10*3+20 {
				bad = append(bad, fmt.Sprintf("read %.0f rows of jobs and job_waits to release 3", read))
			}
			if len(bad) > 0 {
				t.Errorf("release the children of %s, %s: %s\n%s\n%s", c.name, what, strings.Join(bad, "; "), p.Query, p.Plan)
			}
		}
		if releases != c.releases {
			t.Errorf("completing %s, %s, ran release_children's statement %d times, want %d", c.name, what, releases, c.releases)
		}
	}
}

// boundedWaitScans lists the scans of job_waits that are not index scans
// bounded by a condition.
func boundedWaitScans(plan planNode) []string { return boundedScansOf(plan, "job_waits") }

// rowsRead is how many rows the scans of jobs and job_waits returned or
// filtered out, over all their loops.
func rowsRead(plan planNode) float64 { return rowsReadOf(plan, "jobs", "job_waits") }
