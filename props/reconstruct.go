package props

import (
	"cmp"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
)

// Reconstruct builds a History from what a live run leaves behind: the job
// and worker rows read from the database after the run, and the events its
// processes and its driver logged (ExecStarted, ExecEnded, Crashed,
// Restarted, ShutdownBegan, ShutdownCompleted, DutiesStarted, DutiesEnded,
// ResultFenced, ScheduleFired, and leader terms as Commit events carrying a
// LeaseChange whose After is the lease written; Before is filled in here).
// Log events must carry store time (the database's now), not a local clock.
//
// Each row becomes the commits that produced it, at the times its columns
// record: inserted at created_at, promoted at scheduled_at, reserved at
// started_at, ended at completed_at, failed_at or cancelled_at (with its
// retry's insert and link when the retry was created at the failure time),
// workers registered, last seen and shut down. Everything is merged in time
// order, ties broken by a fixed order of what happens first in a tick.
//
// What the rows cannot tell is not checked: the commits' workers are unknown
// (so leader-only changes and fencing are judged only through the log), and
// a promotion is assumed to happen at scheduled_at, and a worker's
// heartbeats but its last are not known (Params.HeartbeatsUnknown). Rows deleted by
// retention break their chains: run with a retention longer than the run.
func Reconstruct(params Params, jobs []JobRow, workers []WorkerRow, log []Event) History {
	var items []item
	rows := jobIndex{byID: make(map[ulid.ULID]JobRow, len(jobs)), prev: make(map[ulid.ULID]JobRow)}
	for _, j := range jobs {
		rows.byID[j.ID] = j
		if !j.NextAttemptID.IsZero() {
			rows.prev[j.NextAttemptID] = j
		}
	}
	for _, w := range workers {
		items = append(items, workerItems(w)...)
	}
	for _, j := range jobs {
		items = append(items, jobItems(j, rows)...)
	}
	slices.SortStableFunc(items, func(a, b item) int {
		return cmp.Or(a.t.Compare(b.t), cmp.Compare(a.rank, b.rank), a.id.Compare(b.id))
	})
	logged := slices.Clone(log)
	slices.SortStableFunc(logged, func(a, b Event) int { return a.Time.Compare(b.Time) })
	items = mergeLog(items, logged)
	h := History{Params: params, Events: make([]Event, len(items))}
	h.Params.HeartbeatsUnknown = true
	var lease *LeaseRow
	for i, it := range items {
		e := it.e
		e.Seq, e.Time = int64(i+1), it.t
		if e.Kind == Commit && len(e.Leases) > 0 {
			e.Leases = chainLeases(&lease, e.Leases)
		}
		h.Events[i] = e
	}
	return h
}

// jobIndex finds a row by id and the attempt that links to it.
type jobIndex struct {
	byID map[ulid.ULID]JobRow
	prev map[ulid.ULID]JobRow // by the id of the next attempt
}

// mergeLog merges the logged events, keeping their order, into the row
// items: at one time, a row item goes first if its rank comes before the
// logged event's.
func mergeLog(rows []item, log []Event) []item {
	out := make([]item, 0, len(rows)+len(log))
	for len(rows) > 0 || len(log) > 0 {
		if len(log) == 0 || len(rows) > 0 && rowFirst(rows[0], log[0]) {
			out, rows = append(out, rows[0]), rows[1:]
			continue
		}
		out, log = append(out, item{t: log[0].Time, e: log[0]}), log[1:]
	}
	return out
}

// rowFirst reports whether row item r goes before logged event e.
func rowFirst(r item, e Event) bool {
	if c := r.t.Compare(e.Time); c != 0 {
		return c < 0
	}
	return r.rank < logRank(e.Kind)
}

// item is one reconstructed event with its sort key.
type item struct {
	t    time.Time
	rank int // order among events at the same time
	id   ulid.ULID
	e    Event
}

// Ranks order what happens at one store time the way a tick does: workers
// register and leases are taken, then rows are inserted, promoted and
// reserved, handlers start, end, and their rows are finished; shutdowns last.
const (
	rankRegister = iota
	rankLease
	rankDutiesStarted
	rankInsert
	rankPromote
	rankReserve
	rankExecStarted
	rankLog
	rankExecEnded
	rankWorkerShutdown
	rankFinish
	rankScheduleRun   // a leader enqueues a run once the previous one ended
	rankScheduleFired // and logs it after the insert it made
	rankDutiesEnded
	rankShutdownCompleted
)

// logRank places a logged event among the row events of the same time.
func logRank(k Kind) int {
	switch k {
	case Commit:
		return rankLease
	case DutiesStarted:
		return rankDutiesStarted
	case ExecStarted:
		return rankExecStarted
	case ExecEnded:
		return rankExecEnded
	case ScheduleFired, VacuumClaimed:
		return rankScheduleFired
	case DutiesEnded:
		return rankDutiesEnded
	case ShutdownCompleted:
		return rankShutdownCompleted
	}
	return rankLog
}

// commitItem is a one-change commit at t.
func commitItem(t time.Time, rank int, id ulid.ULID, fill func(*Event)) item {
	e := Event{Kind: Commit}
	fill(&e)
	return item{t: t, rank: rank, id: id, e: e}
}

// workerItems registers w, records its last heartbeat and its shutdown.
func workerItems(w WorkerRow) []item {
	reg := WorkerRow{ID: w.ID, RegisteredAt: w.RegisteredAt, LastSeenAt: w.RegisteredAt}
	out := []item{commitItem(w.RegisteredAt, rankRegister, w.ID, func(e *Event) {
		e.Workers = []WorkerChange{{After: ptr(reg)}}
	})}
	seen := reg
	if w.LastSeenAt.After(w.RegisteredAt) {
		seen.LastSeenAt = w.LastSeenAt
		before := reg
		out = append(out, commitItem(w.LastSeenAt, rankRegister, w.ID, func(e *Event) {
			e.Workers = []WorkerChange{{Before: &before, After: ptr(seen)}}
		}))
	}
	if !w.ShutdownAt.IsZero() {
		before, after := seen, seen
		after.ShutdownAt = w.ShutdownAt
		out = append(out, commitItem(w.ShutdownAt, rankWorkerShutdown, w.ID, func(e *Event) {
			e.Workers = []WorkerChange{{Before: &before, After: &after}}
		}))
	}
	return out
}

// jobItems replays one job row's life. A retry created at the failure time
// (a snooze's row at the snooze's) is inserted by the commit that ended the
// row before it; one created later by its own commit.
func jobItems(j JobRow, rows jobIndex) []item {
	r := replay{row: insertedRow(j)}
	if p, linked := rows.prev[j.ID]; !linked || !endTime(p).Equal(j.CreatedAt) {
		r.insert(j, p, linked)
	}
	if r.row.Status == Scheduled && j.Status != Scheduled && !(j.Status == Cancelled && j.StartedAt.IsZero()) {
		at := j.ScheduledAt
		if !j.StartedAt.IsZero() && j.StartedAt.Before(at) {
			at = j.StartedAt // it ran early: let the checker see that
		}
		r.step(at, rankPromote, func(x *JobRow) { x.Status = Available }, nil)
	}
	if !j.StartedAt.IsZero() {
		r.step(j.StartedAt, rankReserve, func(x *JobRow) { x.Status, x.StartedAt, x.StartedBy = Running, j.StartedAt, j.StartedBy }, nil)
	}
	if end := endTime(j); !end.IsZero() {
		next, hasNext := rows.byID[j.NextAttemptID]
		sameTx := hasNext && next.CreatedAt.Equal(end)
		r.step(end, rankFinish, func(x *JobRow) {
			*x = j
			if !sameTx {
				x.NextAttemptID = ulid.ULID{}
			}
		}, func(e *Event) {
			if sameTx {
				e.Jobs = append(e.Jobs, JobChange{After: ptr(insertedRow(next))})
			}
		})
	}
	return r.out
}

// replay builds the commits of one job row in order.
type replay struct {
	row JobRow // as the last commit left it
	out []item
}

// insert adds the row's insert commit, with the link from the attempt p it
// retries when there is one.
func (r *replay) insert(j, p JobRow, linked bool) {
	rank := rankInsert
	if j.root() && j.ScheduleName != "" {
		rank = rankScheduleRun
	}
	ins := r.row
	r.out = append(r.out, commitItem(j.CreatedAt, rank, j.ID, func(e *Event) {
		e.Jobs = []JobChange{{After: &ins}}
		if linked {
			e.Jobs = append(e.Jobs, linkChange(p, ins)...)
		}
	}))
}

// step adds a commit at t changing the row with mutate; extra adds more
// changes to the same commit.
func (r *replay) step(t time.Time, rank int, mutate func(*JobRow), extra func(*Event)) {
	before := r.row
	mutate(&r.row)
	after := r.row
	r.out = append(r.out, commitItem(t, rank, after.ID, func(e *Event) {
		e.Jobs = []JobChange{{Before: &before, After: &after}}
		if extra != nil {
			extra(e)
		}
	}))
}

// linkChange sets p's next attempt to the new row n (p as it ended).
func linkChange(p, n JobRow) []JobChange {
	before, after := p, p
	before.NextAttemptID = ulid.ULID{}
	after.NextAttemptID = n.ID
	return []JobChange{{Before: &before, After: &after}}
}

// insertedRow is a row as InsertJobs or ScheduleRetry writes it.
func insertedRow(j JobRow) JobRow {
	r := JobRow{ID: j.ID, Queue: j.Queue, Status: Available, Attempt: j.Attempt,
		CreatedAt: j.CreatedAt, ScheduledAt: j.ScheduledAt, ScheduleName: j.ScheduleName,
		MaxAttempts: j.MaxAttempts, Snoozes: j.Snoozes, PartitionKey: j.PartitionKey, Sequence: j.Sequence}
	if j.ScheduledAt.After(j.CreatedAt) {
		r.Status = Scheduled
	}
	return r
}

// endTime is when a terminal row ended (zero for a row still going).
func endTime(j JobRow) time.Time {
	switch j.Status {
	case Completed, Snoozed:
		return j.CompletedAt
	case Failed, Lost:
		return j.FailedAt
	case Cancelled:
		return j.CancelledAt
	}
	return time.Time{}
}

// chainLeases fills in each lease change's Before from the lease the
// previous logged change left, and tracks it.
func chainLeases(cur **LeaseRow, changes []LeaseChange) []LeaseChange {
	out := make([]LeaseChange, len(changes))
	for i, ch := range changes {
		out[i] = LeaseChange{Before: *cur, After: ch.After}
		*cur = ch.After
	}
	return out
}

func ptr[T any](v T) *T { return &v }
