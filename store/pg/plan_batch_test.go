package pg_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store/pg"
)

// Ids of the batch fixture: the million-row backlog are members of
// batch B, whose callback is the finished row B; three more finished rows
// are members of B that ended and are not counted yet; a million more
// batches rows stand for a million finished callbacks'.
const (
	bigBatch    = "'00000000-0000-0000-0000-0000000003f0'" // 1008: of the history
	otherBatch  = "'00000000-0000-0000-0000-0000fffffffe'" // the callback of an insert, in no row yet
	firstMember = "00000000-0000-0000-0000-000000000400"   // 1024 and 1025: history rows, made members by the insert
	nextMember  = "00000000-0000-0000-0000-000000000401"
)

// TestBatchesStayBoundedWithAMillionRows: with the million-row backlog
// members of one batch and a million batches rows, the leader's count of
// the members that ended, the lock and write of their batch, the release
// of its callback and an insert's batch making read jobs and batches
// through index scans bounded by a condition, and about as many rows as
// they change: never the backlog, the finished rows nor all the batches.
// The batches rows are the million of the finished rows the fixture once
// held (ids 1001 on, but B); a thousand finished rows stay, since no
// statement here reads a job that is no member (the rows read are
// bounded all the same), and building the million cost a quarter of the
// test.
func TestBatchesStayBoundedWithAMillionRows(t *testing.T) {
	long.Test(t, "builds a million rows and a million batches")
	t.Parallel()
	s := shapedMillionRows(t, backlogShape{backlogCols: ", batch", backlogVals: ", " + bigBatch + "::uuid", finished: 1000})
	for _, q := range []string{
		`UPDATE {schema}.jobs SET batch = ` + bigBatch + `
			WHERE id IN (SELECT id FROM {schema}.jobs WHERE status = 'completed' AND id > ` + bigBatch + ` ORDER BY id LIMIT 3)`,
		`UPDATE {schema}.jobs SET status = 'waiting', callback_of = id, started_at = NULL, started_by = NULL, completed_at = NULL
			WHERE id = ` + bigBatch,
		`INSERT INTO {schema}.batches (id, members) SELECT ` + fixtureID("1000 + g") + `, 1
			FROM generate_series(1, ` + fmt.Sprint(history) + `) AS g WHERE 1000 + g <> x'3f0'::int`,
		`INSERT INTO {schema}.batches (id, members) VALUES (` + bigBatch + `, 2000000)`,
		`VACUUM {schema}.jobs`,
		`VACUUM {schema}.batches`,
	} {
		if _, err := s.Pool().Exec(t.Context(), strings.ReplaceAll(q, "{schema}", pgx.Identifier{s.Schema()}.Sanitize())); err != nil {
			t.Fatalf("make the batch: %v\n%s", err, q)
		}
	}
	big := strings.Trim(bigBatch, "'")
	cases := []struct {
		name    string
		sql     string
		args    string
		changes float64 // the rows the statement returns or changes
	}{
		{"count the members that ended", pg.CountMembersSQL(s), "", 3},
		{"lock their batch", pg.LockBatchesSQL(s), "'{" + big + "," + big + "}'", 1},
		{"write their batch", pg.WriteBatchSQL(s), bigBatch + ", 3, 0, 0, '{}'", 1},
		{"release its callback", pg.ReleaseCallbacksSQL(s), "NULL, '{" + big + "}'", 1},
		{"make an insert's batch", pg.MakeBatchesSQL(s), "'{" + firstMember + "," + nextMember + "}', '{" +
			strings.Trim(otherBatch, "'") + "," + strings.Trim(otherBatch, "'") + "}', '{" + strings.Trim(otherBatch, "'") + "}', '{2}'", 3},
	}
	for _, stats := range []string{"no statistics", "fresh statistics"} {
		if stats == "fresh statistics" {
			analyze(t, s)
		}
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			for _, c := range cases {
				plan := explainPlan(t, s, planOptions{mode: mode, guarded: true, analyze: true}, c.sql, c.args)
				// The uncounted members are all of their small index.
				bad := slices.DeleteFunc(boundedJobScans(plan, "jobs_pkey", "jobs_batch_uncounted_idx"), func(s string) bool {
					return s == "index scan of all of jobs_batch_uncounted_idx"
				})
				bad = append(bad, boundedScansOf(plan, "batches")...)
				if read := rowsReadOf(plan, "jobs", "batches"); read > 10*c.changes+20 {
					bad = append(bad, fmt.Sprintf("read %.0f rows of jobs and batches to change about %.0f", read, c.changes))
				}
				if len(bad) > 0 {
					t.Errorf("%s, %s, %s: %s\n%s", c.name, stats, mode, strings.Join(bad, "; "), plan)
				}
			}
		}
	}
}
