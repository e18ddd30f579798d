package pg_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// jobRuleRow inserts one job row of queue q with the columns given after
// the mandatory ones; {s} is the schema.
const jobRuleRow = `INSERT INTO {s}.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at%s)
	VALUES (gen_random_uuid(), 'q', '{}', '{}', %s, 0, now(), now()%s)`

// ruleCase is a write against the jobs table and the rule, by constraint
// name, that must refuse it ("" when it must pass).
type ruleCase struct {
	name, sql, refusedBy string
}

// jobRow builds jobRuleRow with status and extra columns and values.
func jobRow(status, columns, values string) string {
	if columns != "" {
		columns, values = ", "+columns, ", "+values
	}
	return fmt.Sprintf(jobRuleRow, columns, status, values)
}

// TestJobRowRules: every rule the jobs table holds its rows to refuses a
// row that breaks it, on insert and on update, with the check-violation
// code and the rule's name, and lets through the rows next to the line.
func TestJobRowRules(t *testing.T) {
	s := pgtest.Open(t, nil)
	cases := []ruleCase{
		{"a known status", jobRow("'waiting'", "", ""), ""},
		{"an unknown status", jobRow("'done'", "", ""), "job_status_check"},
		{"priority 9", jobRow("'available'", "priority", "9"), ""},
		{"priority 10", jobRow("'available'", "priority", "10"), "job_priority_check"},
		{"a negative attempt", strings.Replace(jobRow("'available'", "", ""), "0, now()", "-1, now()", 1), "job_count_check"},
		{"negative snoozes", jobRow("'available'", "snoozes", "-1"), "job_count_check"},
		{"no attempts allowed", jobRow("'available'", "max_attempts", "0"), "job_max_attempts_check"},
		{"an empty partition key", jobRow("'available'", "partition_key", "''"), "job_key_check"},
		{"a partition key of 200 bytes", jobRow("'available'", "partition_key", "repeat('k', 200)"), ""},
		{"a sequence key of 201 bytes", jobRow("'available'", "sequence_key, sequence_pos", "repeat('k', 201), 1"), "job_key_check"},
		{"no parents", jobRow("'waiting'", "parents", "'{}'"), "job_parents_check"},
		{"101 parents", jobRow("'waiting'", "parents", "ARRAY(SELECT gen_random_uuid() FROM generate_series(1, 101))"), "job_parents_check"},
		{"a false mark", jobRow("'completed'", "awaited", "false"), "job_mark_check"},
		{"run_anyway false", jobRow("'waiting'", "parents, run_anyway", "ARRAY[gen_random_uuid()], false"), "job_mark_check"},
		{"batch_counted false", jobRow("'completed'", "batch, batch_counted", "gen_random_uuid(), false"), "job_mark_check"},
		{"a job in a sequence", jobRow("'available'", "sequence_key, sequence_pos, sequence_continues", "'k', 1, true"), ""},
		{"a sequence key without a place", jobRow("'available'", "sequence_key", "'k'"), "jobs_sequence_check"},
		{"a place without a key", jobRow("'available'", "sequence_pos", "1"), "jobs_sequence_check"},
		{"continuing without a sequence", jobRow("'available'", "sequence_continues", "true"), "jobs_sequence_check"},
		{"skipped without a sequence", jobRow("'failed'", "sequence_skipped", "true"), "jobs_sequence_check"},
		{"a sequence and a partition key", jobRow("'available'", "sequence_key, sequence_pos, partition_key", "'k', 1, 'p'"), "jobs_sequence_check"},
		{"dead-lettered from another queue", jobRow("'failed'", "dead_from", "'other'"), ""},
		{"dead-lettered from its own queue", jobRow("'failed'", "dead_from", "'q'"), "jobs_dead_from_check"},
		{"dead-lettered while available", jobRow("'available'", "dead_from", "'other'"), "jobs_dead_from_check"},
		// Updates: the row of each statement is a valid one made invalid.
		{"a status set to an unknown one", jobRow("'available'", "", "") + `; UPDATE {s}.jobs SET status = 'done'`, "job_status_check"},
		{"a key's place dropped", jobRow("'available'", "sequence_key, sequence_pos", "'k', 1") + `; UPDATE {s}.jobs SET sequence_pos = NULL`, "jobs_sequence_check"},
		{"a partition key added to a sequence", jobRow("'available'", "sequence_key, sequence_pos", "'k', 1") + `; UPDATE {s}.jobs SET partition_key = 'p'`, "jobs_sequence_check"},
		{"a dead-lettered job made available", jobRow("'failed'", "dead_from", "'other'") + `; UPDATE {s}.jobs SET status = 'available'`, "jobs_dead_from_check"},
		{"a dead-lettered job moved to its origin", jobRow("'failed'", "dead_from", "'other'") + `; UPDATE {s}.jobs SET queue = 'other'`, "jobs_dead_from_check"},
	}
	schema := pgx.Identifier{s.Schema()}.Sanitize()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx, err := s.Pool().Begin(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(t.Context()) //nolint:errcheck // every case is undone
			_, err = tx.Exec(t.Context(), strings.ReplaceAll(c.sql, "{s}", schema), pgx.QueryExecModeSimpleProtocol)
			var pgErr *pgconn.PgError
			switch {
			case c.refusedBy == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.refusedBy == "":
			case !errors.As(err, &pgErr):
				t.Fatalf("= %v, want a check violation of %s", err, c.refusedBy)
			case pgErr.Code != "23514" || pgErr.ConstraintName != c.refusedBy:
				t.Fatalf("= %s (code %s, constraint %q), want a check violation of %s", pgErr.Message, pgErr.Code, pgErr.ConstraintName, c.refusedBy)
			}
		})
	}
}

// TestJobsHaveNoTableChecks: the jobs table keeps its rules in its
// columns' types and in triggers that run only on the columns they watch.
// A CHECK constraint on the table would be read back from its text and
// planned again in every statement that writes a job (a reservation and
// a completion on every pass), whatever columns the statement sets.
func TestJobsHaveNoTableChecks(t *testing.T) {
	s := pgtest.Open(t, nil)
	rows, err := s.Pool().Query(t.Context(), `SELECT conname FROM pg_constraint WHERE contype = 'c' AND conrelid = $1::regclass`,
		pgx.Identifier{s.Schema(), "jobs"}.Sanitize())
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(names) > 0 {
		t.Fatalf("jobs has CHECK constraints %v: make each a domain of its column or a trigger on the columns it reads", names)
	}
}

// TestChecksMigrationRewritesNothing: migration 0024 changes the types of
// eleven columns of jobs, each to a domain of the same base type and
// collation, without writing the table anew (on a deployment with
// millions of rows that would hold every worker off for minutes): the
// table and its primary key keep their files. PostgreSQL builds again the
// partial indexes whose predicates read a changed column.
func TestChecksMigrationRewritesNothing(t *testing.T) {
	t.Parallel() // a schema of its own
	ctx := t.Context()
	s := openUnmigrated(t)
	if _, err := pg.MigrateFiles(ctx, s, firstMigrations(t, 23)); err != nil {
		t.Fatal(err)
	}
	schema := pgx.Identifier{s.Schema()}.Sanitize()
	if _, err := s.Pool().Exec(ctx, strings.ReplaceAll(v1Rows, "{s}", schema)); err != nil {
		t.Fatal(err)
	}
	const files = `SELECT string_agg(c.relname || ' ' || pg_relation_filenode(c.oid), ', ' ORDER BY c.relname)
		FROM pg_class AS c WHERE c.oid IN ($1::regclass, $2::regclass)`
	read := func() string {
		t.Helper()
		var out string
		if err := s.Pool().QueryRow(ctx, files, schema+".jobs", schema+".jobs_pkey").Scan(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := read()
	if res, err := s.ApplyMigrations(ctx); err != nil || res.Version != pg.SchemaVersion() {
		t.Fatalf("migrating from 23: %+v, %v", res, err)
	}
	if after := read(); after != before {
		t.Fatalf("migration 0024 wrote jobs or its primary key anew:\nbefore: %s\nafter:  %s", before, after)
	}
}
