package pg_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// Fixed ids of the million-row fixture: a live worker, one shut down an
// hour ago whose running jobs nobody rescued yet, and one shut down ten
// days ago (past the default worker retention).
const (
	liveWorker = "'00000000-0000-0000-0000-00000000000a'"
	deadWorker = "'00000000-0000-0000-0000-00000000000b'"
	oldWorker  = "'00000000-0000-0000-0000-00000000000c'"
	waiting    = 1_000_000 // available jobs of queue q
	history    = 1_000_000 // finished jobs, half past the default job retention
	// reserveArgs are the arguments of a reservation of 100 jobs of q for
	// the live worker, from the start of q's range.
	reserveArgs = "NULL, " + liveWorker + ", '{q}', 100, " + pg.FromStartSQL
)

// millionRows returns a store whose jobs table holds a backlog of a million
// available jobs after a million finished ones, a few running and scheduled
// jobs, and nothing analyzed: the state in which the reservation once
// sorted the whole backlog at every pass, built with
// generate_series in a few seconds rather than through the store. The
// backlog's jobs hold unique keys (uniqueBacklog), which no statement of
// the job path reads but the enqueue function's lookup.
func millionRows(t *testing.T) *pg.Store { return shapedMillionRows(t, uniqueBacklog) }

// uniqueBacklog gives the backlog's row g the unique key kg, held while it
// is scheduled, available or running.
var uniqueBacklog = backlogShape{
	backlogCols: ", unique_key, unique_states",
	backlogVals: ", 'k' || g || '|scheduled,available,running', 7",
}

// backlogShape is what a plan test adds to the million-row fixture: columns
// of the backlog's rows and of the running ones, written as the rows are
// inserted (updating a million rows afterwards cost as much as inserting
// them again), and statements to run after the rows are in. In the values,
// g is the row's number (the backlog's ids grow with it) and {id} its id.
type backlogShape struct {
	status                   string // of the backlog: available unless set
	backlogCols, backlogVals string // ", col", ", value"
	runningCols, runningVals string
	after                    []string // {schema} replaced
	// finished is how many finished jobs precede the backlog: the
	// history's million unless set. A shape whose statements read only
	// the backlog and the running rows sets a thousand, which still
	// leaves the table over a million rows and builds in half the time;
	// the history's bounds are TestPlansStayBoundedWithAMillionRows's.
	finished int
}

// fixtureID is the id of the fixture's row number n (SQL): the running
// jobs are 1 to 200, the scheduled ones 201 to 1000, the finished ones
// from 1001 and the backlog's from 1001 + history.
func fixtureID(n string) string {
	return "('00000000-0000-0000-0000-' || lpad(to_hex(" + n + "), 12, '0'))::uuid"
}

// shapedMillionRows is millionRows with the backlog shaped by shape.
func shapedMillionRows(t *testing.T, shape backlogShape) *pg.Store {
	s := pgtest.Open(t, nil)
	id := fixtureID
	status := cmp.Or(shape.status, "available")
	finished := cmp.Or(shape.finished, history)
	backlogID := id(fmt.Sprint(1000+history) + " + g")
	start := time.Now()
	for _, q := range slices.Concat([]string{
		// Unlogged, to build fast: the planner treats them alike.
		`ALTER TABLE {schema}.schedules SET UNLOGGED`,
		`ALTER TABLE {schema}.jobs SET UNLOGGED`,
		`INSERT INTO {schema}.workers (id, registered_at, last_seen_at, shutdown_at) VALUES
			(` + liveWorker + `, now(), now(), NULL),
			(` + deadWorker + `, now() - interval '2 hours', now() - interval '1 hour', now() - interval '1 hour'),
			(` + oldWorker + `, now() - interval '40 days', now() - interval '10 days', now() - interval '10 days')`,
		// History: finished by the three workers over the last 58 days.
		`INSERT INTO {schema}.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at,
			started_at, started_by, completed_at)
		SELECT ` + id("1000 + g") + `, 'q', '{}', '{}', 'completed', 0, now() - interval '60 days', now() - interval '60 days',
			now() - interval '60 days', (ARRAY[` + liveWorker + `, ` + deadWorker + `, ` + oldWorker + `]::uuid[])[1 + g % 3],
			now() - g * interval '5 seconds'
		FROM generate_series(1, ` + fmt.Sprint(finished) + `) AS g`,
		// Running under the live and the dead worker; scheduled, half due.
		`INSERT INTO {schema}.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at, started_at, started_by` +
			shape.runningCols + `)
		SELECT ` + id("g") + `, 'q', '{}', '{}', 'running', 0, now(), now(), now(),
			CASE WHEN g % 2 = 0 THEN ` + liveWorker + `::uuid ELSE ` + deadWorker + `::uuid END` +
			strings.ReplaceAll(shape.runningVals, "{id}", id("g")) + `
		FROM generate_series(1, 200) AS g`,
		`INSERT INTO {schema}.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at)
		SELECT ` + id("200 + g") + `, 'q', '{}', '{}', 'scheduled', 0, now(), now() + (g - 400) * interval '1 second'
		FROM generate_series(1, 800) AS g`,
		// The backlog.
		`INSERT INTO {schema}.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at` + shape.backlogCols + `)
		SELECT ` + backlogID + `, 'q', '{}', '{}', '` + status + `', 0, now(), now() - interval '1 minute'` +
			strings.ReplaceAll(shape.backlogVals, "{id}", backlogID) + `
		FROM generate_series(1, ` + fmt.Sprint(waiting) + `) AS g`,
	}, shape.after) {
		if _, err := s.Pool().Exec(t.Context(), strings.ReplaceAll(q, "{schema}", pgx.Identifier{s.Schema()}.Sanitize())); err != nil {
			t.Fatalf("build the million-row fixture: %v\n%s", err, q)
		}
	}
	t.Logf("built %d waiting and %d finished jobs in %v", waiting, finished, time.Since(start).Round(time.Millisecond))
	return s
}

// analyze gathers the statistics the planner had none of.
func analyze(t *testing.T, s *pg.Store) {
	t.Helper()
	for _, table := range []string{"jobs", "workers", "schedules"} {
		if _, err := s.Pool().Exec(t.Context(), "ANALYZE "+pgx.Identifier{s.Schema(), table}.Sanitize()); err != nil {
			t.Fatal(err)
		}
	}
}

// planCase is one statement of the job path or of leader duties, with the
// arguments to explain it with and what its plan must look like.
type planCase struct {
	name    string
	sql     func(*pg.Store) string
	args    string
	guarded bool // sent with pg.IndexScansOnlySQL before it
	check   func(plan planNode) []string
	// setup, if set, returns statements to run first in the explaining
	// transaction, which rolls them back.
	setup func(*pg.Store) []string
}

// options returns the options to explain c with in mode.
func (c planCase) options(s *pg.Store, mode string) planOptions {
	o := planOptions{mode: mode, guarded: c.guarded}
	if c.setup != nil {
		o.setup = c.setup(s)
	}
	return o
}

// TestPlansStayBoundedWithAMillionRows explains every statement of the job
// path and of leader duties, generic and custom, with no statistics and
// then with fresh ones, over a million waiting and a million finished jobs,
// and requires each to read jobs only through index scans bounded by a
// condition. The reservation is also run: it must read about limit index
// entries, where a bitmap plan once sorted the whole backlog; and so is
// the move of a failed job to its dead-letter queue (deadLetterStaysBounded)
// and, with fresh statistics, the enqueue function's statements
// (enqueueFunctionPlansStayBounded).
func TestPlansStayBoundedWithAMillionRows(t *testing.T) {
	long.Test(t, "builds two million rows")
	t.Parallel()
	s := millionRows(t)
	for _, stats := range []string{"no statistics", "fresh statistics"} {
		if stats == "fresh statistics" {
			analyze(t, s)
		}
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			for _, c := range planCases {
				plan := explainPlan(t, s, c.options(s, mode), c.sql(s), c.args)
				if bad := c.check(plan); len(bad) > 0 {
					t.Errorf("%s, %s, %s: %s\n%s", c.name, stats, mode, strings.Join(bad, "; "), plan)
				}
			}
			deadLetterStaysBounded(t, s, stats, mode)
			if stats == "fresh statistics" {
				enqueueFunctionPlansStayBounded(t, s, mode)
			}
			o := planOptions{mode: mode, guarded: true, analyze: true}
			plan := explainPlan(t, s, o, pg.ReserveSQL(s), reserveArgs)
			if read := entriesRead(plan, "jobs_available_idx"); read > 200 {
				t.Errorf("reserving 100 of %d waiting jobs, %s, %s: read %.0f index entries\n%s", waiting, stats, mode, read, plan)
			}
			// With a limit, a reservation that counts reads the running rows
			// (here the fixture's 200) and one that reuses the places of the
			// jobs its pass completed reads none: neither reads the history.
			o.setup = []string{pg.SQL(s, `INSERT INTO {schema}.queues (name, max_running) VALUES ('q', 1000)`)}
			for _, room := range []string{"-1", "100"} {
				o.setup = append(o.setup[:1], `SELECT set_config('tickwork.limit_room', '{"q": `+room+`}', true)`)
				plan = explainPlan(t, s, o, pg.ReserveSQL(s), reserveArgs)
				read, running := entriesRead(plan, "jobs_available_idx"), entriesRead(plan, "jobs_running_idx")
				if read > 200 || (room == "-1") != (running > 0) || running > 400 {
					t.Errorf("reserving 100 of a limited queue (room %s), %s, %s: read %.0f available and %.0f running entries\n%s",
						room, stats, mode, read, running, plan)
				}
				if bad := countingRunning(boundedJobScans(plan, "jobs_available_idx", "jobs_keyed_available_idx", "jobs_pkey", "jobs_running_idx")); len(bad) > 0 {
					t.Errorf("reserving from a limited queue, %s, %s: %s\n%s", stats, mode, strings.Join(bad, "; "), plan)
				}
			}
			// With a rate, the free slots are read and the used ones are
			// not: 100 of 1,000 slots free.
			o.setup = []string{
				pg.SQL(s, `INSERT INTO {schema}.queues (name, rate_starts, rate_period) VALUES ('q', 1000, '1 hour')`),
				pg.SQL(s, `INSERT INTO {schema}.queue_rate_slots (queue, slot, last_start)
					SELECT 'q', g, CASE WHEN g <= 900 THEN now() ELSE '-infinity' END FROM generate_series(1, 1000) AS g`),
			}
			plan = explainPlan(t, s, o, pg.ReserveSQL(s), reserveArgs)
			read, slots := entriesRead(plan, "jobs_available_idx"), entriesRead(plan, "queue_rate_slots_free_idx")
			if read > 200 || slots == 0 || slots > 200 {
				t.Errorf("reserving 100 of a rate-limited queue, %s, %s: read %.0f available entries and %.0f slots\n%s", stats, mode, read, slots, plan)
			}
		}
	}
}

// entriesRead is how many rows the scans of index returned or filtered out.
func entriesRead(plan planNode, index string) float64 {
	read := 0.0
	plan.walk(nil, func(n planNode, _ []planNode) {
		if n.Index == index {
			read += (n.ActualRows + n.Removed) * n.Loops
		}
	})
	return read
}

// notSortedBeforeLimit complains when a scan of one of indexes reaches
// the Limit above it through a Sort: the scan then reads every row its
// condition matches to return the first few.
func notSortedBeforeLimit(plan planNode, indexes ...string) []string {
	var bad []string
	plan.walk(nil, func(n planNode, above []planNode) {
		if !slices.Contains(indexes, n.Index) {
			return
		}
		for i := len(above) - 1; i >= 0 && above[i].NodeType != "Limit"; i-- {
			if above[i].NodeType == "Sort" { // an Incremental Sort reads only ties
				bad = append(bad, fmt.Sprintf("%s sorted before its limit", n.Index))
			}
		}
	})
	return bad
}

var planCases = []planCase{
	{
		name: "reserve", sql: pg.ReserveSQL, guarded: true,
		args: reserveArgs,
		check: func(p planNode) []string {
			bad := countingRunning(boundedJobScans(p, "jobs_available_idx", "jobs_keyed_available_idx", "jobs_pkey", "jobs_running_idx"))
			return append(bad, notSortedBeforeLimit(p, "jobs_available_idx", "jobs_keyed_available_idx")...)
		},
	},
	{
		name: "reserve without slots", sql: pg.PlainReserveSQL, guarded: true,
		args: reserveArgs,
		check: func(p planNode) []string {
			bad := boundedJobScans(p, "jobs_available_idx", "jobs_keyed_available_idx", "jobs_pkey")
			return append(bad, notSortedBeforeLimit(p, "jobs_available_idx", "jobs_keyed_available_idx")...)
		},
	},
	{
		// The limit lock's decision reads no job: the pass's completions
		// recorded the queues of the jobs they ended.
		name: "decide a limited reservation", sql: pg.LimitLockSQL, guarded: true, args: "1, '{q}', 100",
		check: func(p planNode) []string { return boundedJobScans(p) },
	},
	{
		// The deleting part (queues without history) probes
		// jobs_next_attempt_idx by id for an earlier attempt; with no such
		// queue a one-time filter keeps it from reading any job.
		name: "complete and record for a limit", sql: pg.CompleteRecordingSQL, guarded: true,
		args:  "NULL, '{00000000-0000-0000-0000-000000000002,00000000-0000-0000-0000-000000000004}', " + liveWorker,
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey", "jobs_next_attempt_idx") },
	},
	{
		// set-limit counts the queue's running rows: all of
		// jobs_running_idx, the rows running now, bounded by the workers'
		// concurrency rather than by the table.
		name: "count the running jobs of a queue", sql: pg.MarkOverrunSQL, guarded: true, args: "'q'",
		check: func(p planNode) []string { return countingRunning(boundedJobScans(p, "jobs_running_idx")) },
	},
	{
		name: "complete", sql: pg.CompleteSQL, guarded: true,
		args:  "NULL, '{00000000-0000-0000-0000-000000000002,00000000-0000-0000-0000-000000000004}', " + liveWorker,
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey", "jobs_next_attempt_idx") },
	},
	{
		// A job pass's completion while every queue keeps history: the
		// rows by id, and queues_no_history_idx for the refusal.
		name: "complete, keeping history", sql: pg.CompleteKeepingSQL, guarded: true,
		args:  "NULL, '{00000000-0000-0000-0000-000000000002,00000000-0000-0000-0000-000000000004}', " + liveWorker,
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey") },
	},
	{
		// The same statement with the jobs' queue set to keep no history:
		// the rows it deletes are found by id, the earlier attempt that
		// would keep one through jobs_next_attempt_idx.
		name: "complete, deleting on a queue without history", sql: pg.CompleteSQL, guarded: true,
		args:  "NULL, '{00000000-0000-0000-0000-000000000002,00000000-0000-0000-0000-000000000004}', " + liveWorker,
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey", "jobs_next_attempt_idx") },
		setup: noHistoryOnQ,
	},
	{
		// The job pass's cancel check: the executing jobs by id, never a
		// scan of jobs_ended_idx (whose predicate covers cancelled rows).
		name: "find the cancelled among executing jobs", sql: pg.CancelledSQL, guarded: true,
		args:  "'{00000000-0000-0000-0000-000000000002,00000000-0000-0000-0000-000000000004}'",
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey") },
	},
	{
		name: "fail", sql: pg.FailSQL,
		args:  "NULL, '00000000-0000-0000-0000-000000000002', " + liveWorker + ", 'boom'",
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey") },
	},
	{
		// The retried row by id, and the row holding its unique key (if
		// any) through the key's own index.
		name: "lock a job to retry", sql: pg.LockRetriedSQL, guarded: true,
		args:  "'{00000000-0000-0000-0000-000000000002}', '{00000000-0000-0000-0000-0000ffffffff}'",
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey", "jobs_unique_idx") },
	},
	{
		name: "insert a retry", sql: pg.InsertNextSQL, guarded: true,
		args:  "NULL, '{00000000-0000-0000-0000-000000000002}', '{00000000-0000-0000-0000-0000ffffffff}', 'scheduled', '5 seconds', 1, 0",
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey") },
	},
	{
		name: "lock a job to snooze", sql: pg.LockSnoozedSQL,
		args:  "'00000000-0000-0000-0000-000000000002', " + liveWorker + ", '00000000-0000-0000-0000-0000ffffffff'",
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey") },
	},
	{
		name: "snooze", sql: pg.SnoozeSQL, args: "NULL, '00000000-0000-0000-0000-000000000002'",
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey") },
	},
	{
		// The row by id, and what keeps it by their own indexes.
		name: "lock a job to delete", sql: pg.DeleteFactsSQL, guarded: true, args: "'{00000000-0000-0000-0000-000000000002}'",
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey", "jobs_next_attempt_idx") },
	},
	{
		// A bulk cancel's batch: each row by id, whatever its status.
		name: "cancel jobs", sql: pg.CancelJobsSQL, guarded: true,
		args:  "NULL, '{00000000-0000-0000-0000-000000000002,00000000-0000-0000-0000-000000000004}', '{available,\"\"}'",
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey") },
	},
	{
		name: "delete a job", sql: pg.DeleteJobSQL, guarded: true, args: "'{00000000-0000-0000-0000-000000000002}'",
		// jobs_callback_idx: a deleted callback row's remaining rows.
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey", "jobs_callback_idx") },
	},
	{
		name: "check a schedule's job", sql: pg.CheckAdvanceSQL,
		args:  "'s', '00000000-0000-0000-0000-000000000002'",
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey") },
	},
	{
		name: "running jobs of a worker", sql: pg.RunningJobsSQL, guarded: true, args: liveWorker,
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_running_idx") },
	},
	{
		name: "find lost jobs", sql: pg.FindLostSQL, guarded: true, args: "NULL",
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_running_idx", "jobs_pkey") },
	},
	{
		name: "mark lost jobs", sql: pg.MarkLostSQL, guarded: true,
		args:  "NULL, '{00000000-0000-0000-0000-000000000001,00000000-0000-0000-0000-000000000003}', '{a,b}'",
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_pkey") },
	},
	{
		name: "promote scheduled jobs", sql: pg.PromoteSQL, guarded: true, args: "NULL, 'channel'",
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_promote_idx") },
	},
	{
		name: "delete old jobs", sql: pg.DeleteOldJobsSQL, guarded: true, args: "NULL, '30 days', 2000",
		check: func(p planNode) []string {
			// jobs_next_attempt_idx: one probe per row judged, for an
			// earlier attempt that still names it; jobs_callback_idx: a
			// deleted callback row's remaining rows.
			bad := boundedJobScans(p, "jobs_ended_idx", "jobs_pkey", "jobs_next_attempt_idx", "jobs_callback_idx")
			return append(bad, notSortedBeforeLimit(p, "jobs_ended_idx")...)
		},
	},
	{
		name: "delete old workers", sql: pg.DeleteOldWorkersSQL, guarded: true, args: "NULL, '7 days'",
		check: func(p planNode) []string { return boundedJobScans(p, "jobs_running_idx", "jobs_pkey") },
	},
}

// countingRunning drops from bad the complaint that a scan reads all of
// jobs_running_idx: counting a limited queue's running jobs reads the rows
// running now, as many as the workers run at once, not the history.
func countingRunning(bad []string) []string {
	return slices.DeleteFunc(bad, func(s string) bool { return s == "index scan of all of jobs_running_idx" })
}

// noHistoryOnQ sets queue q, every fixture job's, to keep no history.
func noHistoryOnQ(s *pg.Store) []string {
	return []string{pg.SQL(s, `INSERT INTO {schema}.queues (name, history) VALUES ('q', 'none')`)}
}
