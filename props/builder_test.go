package props

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
)

// builder writes histories by hand the way a store would record them: its
// row helpers change rows as the store's operations do, at the builder's
// store time, and return the change for a commit.
type builder struct {
	params  Params
	now     time.Time
	seq     int64
	events  []Event
	jobs    map[ulid.ULID]JobRow
	workers map[ulid.ULID]WorkerRow
	lease   *LeaseRow
	scheds  map[string]ScheduleRow
	procs   map[ulid.ULID]string // process of a worker id, when not the default
}

// change adds one row change to a commit event.
type change func(*Event)

var epoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func testParams() Params {
	return Params{
		MaxRetries:    2,
		MaxConcurrent: 2,
		MaxSnoozes:    3,
		Backoff:       clockrng.Backoff{Base: 5 * time.Second, Factor: 2, Jitter: 0.1},
		LeaseTTL:      5 * time.Second,
		DeadThreshold: 2 * time.Minute,
		Schedules:     []ScheduleSpec{{Name: "tick", Cron: "0 * * * * *"}},
	}
}

func newBuilder() *builder {
	return &builder{
		params:  testParams(),
		now:     epoch,
		jobs:    make(map[ulid.ULID]JobRow),
		workers: make(map[ulid.ULID]WorkerRow),
		scheds:  make(map[string]ScheduleRow),
		procs:   make(map[ulid.ULID]string),
	}
}

// id makes a readable, ordered ULID: kind in the first byte, n in the last.
func id(kind byte, n int) ulid.ULID {
	var u ulid.ULID
	u[0], u[14], u[15] = kind, byte(n>>8), byte(n)
	return u
}

func job(n int) ulid.ULID    { return id(1, n) }
func worker(n int) ulid.ULID { return id(2, n) }

func (b *builder) history() History { return History{Params: b.params, Events: b.events} }

// next is the index the next event will have.
func (b *builder) next() int { return len(b.events) }

func (b *builder) after(d time.Duration) *builder { b.now = b.now.Add(d); return b }

func (b *builder) emit(e Event) {
	b.seq++
	e.Seq, e.Time = b.seq, b.now
	b.events = append(b.events, e)
}

// commit records one transaction by worker w (zero: the driver).
func (b *builder) commit(w ulid.ULID, changes ...change) {
	e := Event{Kind: Commit, Worker: w}
	if !w.IsZero() {
		e.Process = b.procName(w)
	}
	for _, c := range changes {
		c(&e)
	}
	b.emit(e)
}

// procName: worker n runs in process pn unless b.procs says otherwise (a
// process that registered again).
func (b *builder) procName(w ulid.ULID) string {
	if p, ok := b.procs[w]; ok {
		return p
	}
	return "p" + string(rune('0'+w[15]))
}

func (b *builder) event(kind Kind, w ulid.ULID, fill func(*Event)) {
	e := Event{Kind: kind, Worker: w, Process: b.procName(w)}
	if fill != nil {
		fill(&e)
	}
	b.emit(e)
}

// setJob changes a job row with mutate and returns the change.
func (b *builder) setJob(id ulid.ULID, mutate func(*JobRow)) change {
	before := b.jobs[id]
	after := before
	mutate(&after)
	b.jobs[id] = after
	return func(e *Event) { e.Jobs = append(e.Jobs, JobChange{Before: &before, After: &after}) }
}

func (b *builder) insertJob(r JobRow) change {
	b.jobs[r.ID] = r
	return func(e *Event) { e.Jobs = append(e.Jobs, JobChange{After: &r}) }
}

// deleteJob deletes job n, as retention does.
func (b *builder) deleteJob(n int) change {
	before := b.jobs[job(n)]
	delete(b.jobs, job(n))
	return func(e *Event) { e.Jobs = append(e.Jobs, JobChange{Before: &before}) }
}

// enqueue inserts attempt 0 of a job, due at once.
func (b *builder) enqueue(n int) change {
	return b.insertJob(JobRow{ID: job(n), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now})
}

func (b *builder) reserve(n int, w ulid.ULID) change {
	return b.setJob(job(n), func(r *JobRow) { r.Status, r.StartedAt, r.StartedBy = Running, b.now, w })
}

func (b *builder) complete(n int) change {
	return b.setJob(job(n), func(r *JobRow) { r.Status, r.CompletedAt = Completed, b.now })
}

func (b *builder) fail(n int, reason string) change {
	return b.setJob(job(n), func(r *JobRow) { r.Status, r.FailedAt, r.FailedReason = Failed, b.now, reason })
}

func (b *builder) lose(n int) change {
	return b.setJob(job(n), func(r *JobRow) {
		r.Status, r.FailedAt, r.FailedReason = Lost, b.now, "worker "+r.StartedBy.String()+" was declared dead"
	})
}

// retry links job n to a new attempt m scheduled delay from now.
func (b *builder) retry(n, m int, delay time.Duration) change {
	prev := b.jobs[job(n)]
	ins := b.insertJob(JobRow{ID: job(m), Queue: prev.Queue, Status: Scheduled, Attempt: prev.Attempt + 1,
		CreatedAt: b.now, ScheduledAt: b.now.Add(delay), ScheduleName: prev.ScheduleName, MaxAttempts: prev.MaxAttempts, Snoozes: prev.Snoozes,
		Batch: prev.Batch, Payload: prev.Payload, Metadata: prev.Metadata})
	link := b.setJob(job(n), func(r *JobRow) { r.NextAttemptID = job(m) })
	return func(e *Event) { ins(e); link(e) }
}

func (b *builder) promote(n int) change {
	return b.setJob(job(n), func(r *JobRow) { r.Status = Available })
}

// upsert changes row k of m with mutate (inserting it if absent) and
// returns a change that appends it to the commit's list that field picks.
func upsert[K comparable, R any](m map[K]R, k K, mutate func(*R), field func(*Event) *[]Change[R]) change {
	before, known := m[k]
	after := before
	mutate(&after)
	m[k] = after
	ch := Change[R]{After: &after}
	if known {
		ch.Before = &before
	}
	return func(e *Event) {
		list := field(e)
		*list = append(*list, ch)
	}
}

func (b *builder) setWorker(w ulid.ULID, mutate func(*WorkerRow)) change {
	return upsert(b.workers, w, mutate, func(e *Event) *[]WorkerChange { return &e.Workers })
}

func (b *builder) register(w ulid.ULID) change {
	return b.setWorker(w, func(r *WorkerRow) { r.ID, r.RegisteredAt, r.LastSeenAt = w, b.now, b.now })
}

func (b *builder) heartbeat(w ulid.ULID) change {
	return b.setWorker(w, func(r *WorkerRow) { r.LastSeenAt = b.now })
}

func (b *builder) shutdownWorker(w ulid.ULID) change {
	return b.setWorker(w, func(r *WorkerRow) { r.ShutdownAt = b.now })
}

// deleteWorker deletes w's row, as retention does.
func (b *builder) deleteWorker(w ulid.ULID) change {
	before := b.workers[w]
	delete(b.workers, w)
	return func(e *Event) { e.Workers = append(e.Workers, WorkerChange{Before: &before}) }
}

// setLease replaces the lease row (nil deletes it).
func (b *builder) setLease(after *LeaseRow) change {
	before := b.lease
	b.lease = after
	return func(e *Event) { e.Leases = append(e.Leases, LeaseChange{Before: before, After: after}) }
}

// acquire takes a new lease for w (or renews w's) for the TTL.
func (b *builder) acquire(w ulid.ULID) change {
	l := LeaseRow{Holder: w, ElectedAt: b.now, ExpiresAt: b.now.Add(b.params.LeaseTTL)}
	if b.lease != nil && b.lease.Holder == w {
		l.ElectedAt = b.lease.ElectedAt
	}
	return b.setLease(&l)
}

func (b *builder) setSchedule(name string, at time.Time, j ulid.ULID) change {
	set := func(r *ScheduleRow) { *r = ScheduleRow{Name: name, LastScheduledAt: at, LastScheduledJobID: j} }
	return upsert(b.scheds, name, set, func(e *Event) *[]ScheduleChange { return &e.Schedules })
}

// scheduleRun enqueues attempt 0 of job n as a run of schedule "tick" due
// at the next minute, and points the schedule at it.
func (b *builder) scheduleRun(n int) change {
	due := b.now.Truncate(time.Minute).Add(time.Minute)
	ins := b.insertJob(JobRow{ID: job(n), Queue: "q", Status: Scheduled, CreatedAt: b.now, ScheduledAt: due, ScheduleName: "tick"})
	adv := b.setSchedule("tick", due, job(n))
	return func(e *Event) { ins(e); adv(e) }
}

func (b *builder) start(n int, w ulid.ULID) {
	b.event(ExecStarted, w, func(e *Event) { e.Job = job(n) })
}

func (b *builder) end(n int, w ulid.ULID, d Decision) {
	b.event(ExecEnded, w, func(e *Event) { e.Job, e.Decision = job(n), d })
}

// run reserves, starts, ends and records job n on worker w with decision d
// (Succeed completes it; Retry and Fail fail it, Retry with a retry as job
// m, or none when m is 0).
func (b *builder) run(n int, w ulid.ULID, d Decision, m int) {
	b.commit(w, b.reserve(n, w))
	b.start(n, w)
	b.after(time.Second)
	b.end(n, w, d)
	switch d {
	case Succeed:
		b.commit(w, b.complete(n))
	case Fail:
		b.commit(w, b.fail(n, "no"))
	case Retry:
		if m == 0 {
			b.commit(w, b.fail(n, "again, but no retry left"))
			return
		}
		attempt := b.jobs[job(n)].Attempt
		b.commit(w, b.fail(n, "again"), b.retry(n, m, b.params.Backoff.Nominal(attempt)))
	}
}

// elect gives w a new term in one change of the lease row (elected now), as
// a store that replaces an expired lease in place records it.
func (b *builder) elect(w ulid.ULID) change {
	return b.setLease(&LeaseRow{Holder: w, ElectedAt: b.now, ExpiresAt: b.now.Add(b.params.LeaseTTL)})
}

// reacquire deletes the lease (expired) and gives w a new one, with a
// heartbeat of w's live row: a leader whose own row went stale would be
// declared dead by its next pass (property 39).
func (b *builder) reacquire(w ulid.ULID) {
	changes := []change{b.setLease(nil), b.acquire(w)}
	if r, ok := b.workers[w]; ok && r.ShutdownAt.IsZero() {
		changes = append(changes, b.heartbeat(w))
	}
	b.commit(w, changes...)
}

// duties records leader duties of w with the given commit changes inside.
func (b *builder) duties(w ulid.ULID, changes ...change) {
	b.event(DutiesStarted, w, nil)
	b.commit(w, changes...)
	b.event(DutiesEnded, w, nil)
}

// shutdownDone records a completed graceful shutdown of w with the facts
// read from the builder's rows.
func (b *builder) shutdownDone(w ulid.ULID) {
	b.event(ShutdownCompleted, w, func(e *Event) {
		for _, id := range sortedJobIDs(b.jobs) {
			if r := b.jobs[id]; r.Status == Running && r.StartedBy == w {
				e.Running = append(e.Running, id)
			}
		}
		if b.lease != nil {
			e.LeaseHolder = b.lease.Holder
		}
	})
}

func sortedJobIDs(m map[ulid.ULID]JobRow) []ulid.ULID {
	return slices.SortedFunc(maps.Keys(m), ulid.ULID.Compare)
}

// mustCheck runs Check and fails the test on a params error.
func mustCheck(t *testing.T, h History) []Violation {
	t.Helper()
	vs, err := Check(h)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	return vs
}
