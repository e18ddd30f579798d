package pg_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
)

// firstMigrations returns the embedded migration files up to version n.
func firstMigrations(t *testing.T, n int) fstest.MapFS {
	t.Helper()
	names, err := fs.Glob(pg.EmbeddedMigrations, "migrations/*.sql")
	if err != nil || len(names) < n {
		t.Fatalf("embedded migrations %v (%v), want at least %d", names, err, n)
	}
	files := fstest.MapFS{}
	for _, name := range names[:n] {
		data, err := fs.ReadFile(pg.EmbeddedMigrations, name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = &fstest.MapFile{Data: data}
	}
	return files
}

// v1Rows fills a schema at any version with rows of every kind, through
// the columns of migration 0001 alone: every later migration must keep
// them. {s} is the schema. The job ids end in their number.
const v1Rows = `
INSERT INTO {s}.workers (id, registered_at, last_seen_at, shutdown_at) VALUES
  ('00000000-0000-0000-0000-0000000000a1', '2030-01-01Z', '2030-01-01 00:01Z', NULL),
  ('00000000-0000-0000-0000-0000000000a2', '2030-01-01Z', '2030-01-01Z', '2030-01-01 00:05Z');
INSERT INTO {s}.leader (worker_id, elected_at, expires_at) VALUES ('00000000-0000-0000-0000-0000000000a1', '2030-01-01Z', '2030-01-01 00:00:05Z');
INSERT INTO {s}.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at, started_at, started_by,
                      completed_at, failed_at, failed_reason, cancelled_at, next_attempt_id, schedule_name) VALUES
  ('00000000-0000-0000-0000-000000000001', 'q', '{"n": 1}', '{}', 'available', 0, '2030-01-01Z', '2030-01-01Z', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('00000000-0000-0000-0000-000000000002', 'q', '[2]', '{"t":"x"}', 'scheduled', 0, '2030-01-01Z', '2030-01-02Z', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'nightly'),
  ('00000000-0000-0000-0000-000000000003', 'q', '3', '{}', 'running', 0, '2030-01-01Z', '2030-01-01Z', '2030-01-01 00:00:01Z', '00000000-0000-0000-0000-0000000000a1', NULL, NULL, NULL, NULL, NULL, NULL),
  ('00000000-0000-0000-0000-000000000004', 'q', '4', '{}', 'completed', 0, '2030-01-01Z', '2030-01-01Z', '2030-01-01 00:00:01Z', '00000000-0000-0000-0000-0000000000a1', '2030-01-01 00:00:02Z', NULL, NULL, NULL, NULL, NULL),
  ('00000000-0000-0000-0000-000000000006', 'r', '"six"', '{}', 'available', 1, '2030-01-01 00:00:03Z', '2030-01-01 00:00:03Z', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('00000000-0000-0000-0000-000000000005', 'r', '"six"', '{}', 'failed', 0, '2030-01-01Z', '2030-01-01Z', '2030-01-01 00:00:01Z', '00000000-0000-0000-0000-0000000000a1', NULL, '2030-01-01 00:00:03Z', 'boom', NULL, '00000000-0000-0000-0000-000000000006', NULL),
  ('00000000-0000-0000-0000-000000000007', 'q', '7', '{}', 'lost', 0, '2030-01-01Z', '2030-01-01Z', '2030-01-01 00:00:01Z', '00000000-0000-0000-0000-0000000000a2', NULL, '2030-01-01 00:05Z', 'worker was declared dead', NULL, NULL, NULL),
  ('00000000-0000-0000-0000-000000000008', 'q', '8', '{}', 'cancelled', 0, '2030-01-01Z', '2030-01-01Z', NULL, NULL, NULL, NULL, NULL, '2030-01-01 00:00:04Z', NULL, NULL);
INSERT INTO {s}.schedules (name, last_scheduled_at, last_scheduled_job_id) VALUES ('nightly', '2030-01-02Z', '00000000-0000-0000-0000-000000000002');
`

// v1Dump reads every row through the columns of 0001, one line per row.
const v1Dump = `
SELECT string_agg(r, E'\n' ORDER BY r) FROM (
  SELECT 'worker ' || row(id, registered_at, last_seen_at, shutdown_at)::text AS r FROM {s}.workers
  UNION ALL SELECT 'leader ' || row(worker_id, elected_at, expires_at)::text FROM {s}.leader
  UNION ALL SELECT 'job ' || row(id, queue, payload::text, metadata::text, status, attempt, created_at, scheduled_at, started_at,
      started_by, completed_at, failed_at, failed_reason, cancelled_at, next_attempt_id, schedule_name)::text FROM {s}.jobs
  UNION ALL SELECT 'schedule ' || row(name, last_scheduled_at, last_scheduled_job_id)::text FROM {s}.schedules) AS rows`

// TestMigrateFromEveryVersionKeepsRows migrates a schema with rows of every
// kind from each earlier version to the last, checks that every row reads
// the same afterwards, and that the store then works on them: it lists
// them all, completes the running one with an output and enqueues with a
// unique key.
func TestMigrateFromEveryVersionKeepsRows(t *testing.T) {
	for from := 1; from < pg.SchemaVersion(); from++ {
		t.Run(fmt.Sprintf("from=%d", from), func(t *testing.T) {
			t.Parallel() // a schema of its own
			s := openUnmigrated(t)
			ctx := t.Context()
			if _, err := pg.MigrateFiles(ctx, s, firstMigrations(t, from)); err != nil {
				t.Fatal(err)
			}
			schema := pgx.Identifier{s.Schema()}.Sanitize()
			if _, err := s.Pool().Exec(ctx, strings.ReplaceAll(v1Rows, "{s}", schema)); err != nil {
				t.Fatalf("rows at version %d: %v", from, err)
			}
			dump := func() string {
				t.Helper()
				var out string
				if err := s.Pool().QueryRow(ctx, strings.ReplaceAll(v1Dump, "{s}", schema)).Scan(&out); err != nil {
					t.Fatal(err)
				}
				return out
			}
			before := dump()
			res, err := s.ApplyMigrations(ctx)
			if err != nil || len(res.Applied) != pg.SchemaVersion()-from || res.Version != pg.SchemaVersion() {
				t.Fatalf("migrating from %d: %+v, %v", from, res, err)
			}
			if after := dump(); after != before {
				t.Fatalf("rows changed by migrating from %d:\nbefore:\n%s\nafter:\n%s", from, before, after)
			}
			snap, err := store.Snapshot(ctx, s)
			if err != nil || len(snap.Jobs) != 8 || len(snap.Workers) != 2 || snap.Lease == nil || len(snap.Schedules) != 1 {
				t.Fatalf("the store reads %v:\n%s", err, snap)
			}
			running := snap.JobsIn(store.Running)[0]
			var dups []store.Duplicate
			err = s.InTx(ctx, func(tx store.Tx) error {
				fenced, err := tx.CompleteJobs(ctx, store.Completion{Worker: running.StartedBy, IDs: []ulid.ULID{running.ID}, Outputs: []json.RawMessage{json.RawMessage(`"done"`)}})
				if err != nil || len(fenced) != 0 {
					return fmt.Errorf("complete the running job: fenced %v, %w", fenced, err)
				}
				dups, err = tx.InsertJobs(ctx, []store.NewJob{
					{ID: newULID(t), Queue: "q", Payload: []byte(`{}`), UniqueKey: "k"},
					{ID: newULID(t), Queue: "q", Payload: []byte(`{}`), UniqueKey: "k", MaxAttempts: 3},
				})
				if err != nil {
					return err
				}
				return snoozeOne(t, tx, running.StartedBy)
			})
			if err != nil || len(dups) != 1 {
				t.Fatalf("after migrating from %d: duplicates %v, %v", from, dups, err)
			}
			for _, j := range snap.Jobs {
				if j.MaxAttempts != 0 || j.Snoozes != 0 {
					t.Fatalf("a row from version %d reads a bound or snoozes: %s", from, store.FormatJob(j))
				}
			}
		})
	}
}

// MigrationScript prints what the schema lacks and changes nothing; run by
// hand, the script migrates the schema as ApplyMigrations would.
func TestMigrationScriptRunsAsApplyMigrations(t *testing.T) {
	ctx := t.Context()
	s := openUnmigrated(t)
	if _, err := pg.MigrateFiles(ctx, s, firstMigrations(t, 2)); err != nil {
		t.Fatal(err)
	}
	script, pending, err := s.MigrationScript(ctx)
	if err != nil || len(pending) != pg.SchemaVersion()-2 || pending[0].Version != 3 {
		t.Fatalf("script of a schema at version 2: pending %v, %v", pending, err)
	}
	if strings.Contains(script, "0002_") || !strings.Contains(script, "-- migration "+pending[0].String()) {
		t.Fatalf("script of a schema at version 2:\n%s", script)
	}
	wantVersions(t, s, 2)
	if _, err := s.Pool().Exec(ctx, script, pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("running the script: %v\n%s", err, script)
	}
	if err := s.CheckMigrated(ctx); err != nil {
		t.Fatalf("after running the script: %v", err)
	}
	if _, pending, err := s.MigrationScript(ctx); err != nil || len(pending) != 0 {
		t.Fatalf("script of an up-to-date schema: pending %v, %v", pending, err)
	}
}

// snoozeOne reserves the oldest available job of queue q for worker and
// snoozes it with a unique key's worth of statuses covered: the rows a
// migrated schema holds must take the status and its index.
func snoozeOne(t *testing.T, tx store.Tx, worker ulid.ULID) error {
	ctx := t.Context()
	got, err := tx.Reserve(ctx, worker, []string{"q"}, 1)
	if err != nil || len(got) != 1 {
		return fmt.Errorf("reserve to snooze: %v, %w", got, err)
	}
	next, err := tx.SnoozeJob(ctx, worker, got[0].ID, newULID(t), time.Minute)
	if err != nil || next.Snoozes != 1 || next.Attempt != got[0].Attempt {
		return fmt.Errorf("snooze: %s, %w", store.FormatJob(next), err)
	}
	return nil
}

// TestLimitMigrationsKeepLimits: a schema at version 10 whose queue q is
// limited to 1 while two of its jobs run (job 3 and one more), migrated
// through the run slots (0011, 0012) to the count (0013), is marked
// overrun, so nothing more of q is reserved until both have ended, and
// then one job (job 10; job 1 is due in 2030).
func TestLimitMigrationsKeepLimits(t *testing.T) {
	t.Parallel() // a schema of its own
	s := migratedFromVersion10(t, `
		INSERT INTO {s}.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at, started_at, started_by) VALUES
		  ('00000000-0000-0000-0000-000000000009', 'q', '9', '{}', 'running', 0, '2030-01-01Z', '2030-01-01Z', '2030-01-01Z', '00000000-0000-0000-0000-0000000000a1'),
		  ('00000000-0000-0000-0000-000000000010', 'q', '10', '{}', 'available', 0, '2000-01-01Z', '2000-01-01Z', NULL, NULL);
		INSERT INTO {s}.queues (name, max_running) VALUES ('q', 1);`)
	if !overrun(t, s, "q") {
		t.Fatal("q is not marked overrun with 2 jobs running over its limit of 1")
	}
	worker := uuidULID(t, "00000000-0000-0000-0000-0000000000a1")
	reserve := func() []store.Job {
		t.Helper()
		var got []store.Job
		quickly(t, s, "reserve", func(ctx context.Context, tx store.Tx) (err error) {
			got, err = tx.Reserve(ctx, worker, []string{"q"}, 5)
			return err
		})
		return got
	}
	complete := func(id string) {
		t.Helper()
		quickly(t, s, "complete", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CompleteJobs(ctx, store.Completion{Worker: worker, IDs: []ulid.ULID{uuidULID(t, id)}})
			return err
		})
	}
	if got := reserve(); len(got) != 0 {
		t.Fatalf("reserved %v with 2 running over a limit of 1", jobIDs(got))
	}
	complete("00000000-0000-0000-0000-000000000003")
	if got := reserve(); len(got) != 0 {
		t.Fatalf("reserved %v with job 9 still running over a limit of 1", jobIDs(got))
	}
	complete("00000000-0000-0000-0000-000000000009")
	if got := reserve(); len(got) != 1 {
		t.Fatalf("reserved %v once both ended, want one job", jobIDs(got))
	}
}

// uuidULID reads a uuid's text as the ULID of the same bytes.
func uuidULID(t *testing.T, text string) ulid.ULID {
	t.Helper()
	var u pgtype.UUID
	if err := u.Scan(text); err != nil {
		t.Fatal(err)
	}
	return ulid.ULID(u.Bytes)
}

// TestLimitMigrationsUnderTheLimit: a schema at version 10 whose queue q
// is limited to 100 while two of its jobs run (jobs 3 and 9) is not marked
// overrun, and then admits the 98 jobs left under the limit, no more.
func TestLimitMigrationsUnderTheLimit(t *testing.T) {
	t.Parallel() // a schema of its own
	s := migratedFromVersion10(t, `
		INSERT INTO {s}.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at, started_at, started_by) VALUES
		  ('00000000-0000-0000-0000-000000000009', 'q', '9', '{}', 'running', 0, '2030-01-01Z', '2030-01-01Z', '2030-01-01Z', '00000000-0000-0000-0000-0000000000a1');
		INSERT INTO {s}.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at)
		  SELECT gen_random_uuid(), 'q', '{}', '{}', 'available', 0, '2000-01-01Z', '2000-01-01Z' FROM generate_series(1, 120);
		INSERT INTO {s}.queues (name, max_running) VALUES ('q', 100);`)
	if overrun(t, s, "q") {
		t.Fatal("q is marked overrun with 2 jobs running under its limit of 100")
	}
	worker := uuidULID(t, "00000000-0000-0000-0000-0000000000a1")
	var got []store.Job
	quickly(t, s, "reserve", func(ctx context.Context, tx store.Tx) (err error) {
		got, err = tx.Reserve(ctx, worker, []string{"q"}, 200)
		return err
	})
	if len(got) != 98 {
		t.Fatalf("reserved %d jobs of q with 2 running under a limit of 100, want 98", len(got))
	}
	quickly(t, s, "reserve", func(ctx context.Context, tx store.Tx) (err error) {
		got, err = tx.Reserve(ctx, worker, []string{"q"}, 200)
		return err
	})
	if len(got) != 0 {
		t.Fatalf("reserved %d more jobs of q with 100 running under a limit of 100", len(got))
	}
}

// migratedFromVersion10 returns a store whose schema was migrated to
// version 10, given v1Rows and rows ({s} the schema), then migrated to the
// latest version.
func migratedFromVersion10(t *testing.T, rows string) *pg.Store {
	t.Helper()
	ctx := t.Context()
	s := openUnmigrated(t)
	if _, err := pg.MigrateFiles(ctx, s, firstMigrations(t, 10)); err != nil {
		t.Fatal(err)
	}
	schema := pgx.Identifier{s.Schema()}.Sanitize()
	if _, err := s.Pool().Exec(ctx, strings.ReplaceAll(v1Rows+rows, "{s}", schema)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyMigrations(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// overrun reads queue's limit_overrun mark (migration 0013).
func overrun(t *testing.T, s *pg.Store, queue string) bool {
	t.Helper()
	var over bool
	err := s.Pool().QueryRow(t.Context(), pg.SQL(s, `SELECT limit_overrun FROM {schema}.queues WHERE name = $1`), queue).Scan(&over)
	if err != nil {
		t.Fatalf("read queue %q's overrun mark: %v", queue, err)
	}
	return over
}
