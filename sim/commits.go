package sim

import (
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
)

// takeCommits turns the transactions that committed since the last call
// into history, trace lines, coverage marks and notification deliveries. p
// is the process whose transaction it was (nil for the client).
func (s *sim) takeCommits(p *proc) {
	for _, c := range s.be.TakeCommits() {
		if len(c.Jobs) == 0 && len(c.Workers) == 0 && c.Lease == nil && len(c.Schedules) == 0 && len(c.Queues) == 0 && len(c.Notifications) == 0 {
			continue // read-only
		}
		s.commit(p, &c)
	}
}

func (s *sim) commit(p *proc, c *store.Commit) {
	e := props.Event{Kind: props.Commit, Time: c.Now}
	if p != nil {
		e.Process = p.name
		if p.core != nil {
			e.Worker = p.core.ID()
		}
	}
	actor := "client"
	for _, w := range c.Workers {
		if w.Before == nil && w.After != nil && p != nil {
			p.regs++
			s.names.workers[w.After.ID] = p.name + "." + strconv.Itoa(p.regs)
			if e.Worker.IsZero() {
				e.Worker = w.After.ID
			}
		}
	}
	if p != nil {
		actor = s.names.worker(e.Worker)
	}
	e.Jobs = s.jobChanges(actor, c.Jobs)
	e.Workers = s.workerChanges(actor, c.Workers)
	if c.Lease != nil && !sameLease(c.Lease.Before, c.Lease.After) {
		e.Leases = s.leaseChanges(actor, c.Lease)
	}
	e.Schedules = s.scheduleChanges(actor, c.Schedules)
	e.Queues = s.queueChanges(actor, c.Queues)
	if p == nil {
		e.Bulk = s.bulk
	}
	s.record(&e)
	s.deliver(c.Notifications)
}

// jobChanges converts a transaction's job writes (see canonical).
func (s *sim) jobChanges(actor string, writes []store.JobChange) []props.JobChange {
	ids, folded := canonicalInto(s.canonJobIDs, s.canonJobs, writes, store.JobChange.ID,
		func(w store.JobChange) (*store.Job, *store.Job) { return w.Before, w.After }, sameJob, ulid.ULID.Compare)
	s.canonJobIDs, s.canonJobs = ids, folded
	out, rows := commitBuffers(s, &s.changeBuf, &s.rowBuf, len(folded))
	contents := s.keys != nil || s.on(Bulk) // only EncryptedAtRest and BulkActions read them
	for i, ch := range folded {
		pc := props.JobChange{Before: fillJobRow(&rows[2*i], ch.Before), After: fillJobRow(&rows[2*i+1], ch.After)}
		if contents {
			withContents(pc.Before, ch.Before)
			withContentsAfter(pc.After, ch.After, pc.Before)
		}
		s.rows.change(pc.Before, pc.After)
		if pc.Before == nil && pc.After != nil {
			s.inserted = append(s.inserted, ids[i])
		}
		s.jobMarks(pc)
		s.traceJob(actor, ids[i], pc)
		out[i] = pc
	}
	return out
}

// commitBuffers returns room for n changes and their 2n rows, in *changes
// and *rows. The checker keeps no pointer into a commit's changes, so
// unless the history goes to Options.Record, which may keep it, one buffer
// serves every commit.
func commitBuffers[C, R any](s *sim, changes *[]C, rows *[]R, n int) ([]C, []R) {
	if s.onRecord != nil {
		return make([]C, n), make([]R, 2*n)
	}
	if cap(*changes) < n {
		*changes, *rows = make([]C, n), make([]R, 2*n)
	}
	return (*changes)[:n], (*rows)[:2*n]
}

// JobRow is a store's job row as the property checker reads it; nil stays
// nil (an absent row). A live run on PostgreSQL converts its rows with it too.
func JobRow(j *store.Job) *props.JobRow { return withContents(fillJobRow(new(props.JobRow), j), j) }

// fillJobRow sets *dst to j's row but for its payload and metadata (see
// withContents), and returns dst, or nil for a nil j.
func fillJobRow(dst *props.JobRow, j *store.Job) *props.JobRow {
	if j == nil {
		return nil
	}
	*dst = props.JobRow{
		ID: j.ID, Queue: j.Queue, Status: props.Status(j.Status), Attempt: j.Attempt,
		CreatedAt: j.CreatedAt, ScheduledAt: j.ScheduledAt, StartedAt: j.StartedAt, StartedBy: j.StartedBy,
		CompletedAt: j.CompletedAt, FailedAt: j.FailedAt, FailedReason: j.FailedReason,
		CancelledAt: j.CancelledAt, NextAttemptID: j.NextAttemptID, ScheduleName: j.ScheduleName,
		UniqueKey: j.UniqueKey, UniqueWhile: j.UniqueStates.String(), Output: string(j.Output), Priority: j.Priority,
		MaxAttempts: j.MaxAttempts, Snoozes: j.Snoozes, PartitionKey: j.PartitionKey,
		Sequence: props.JobSequence{Key: j.Sequence.Key, Pos: j.Sequence.Pos, Continues: j.Sequence.Continues, Skipped: j.Sequence.Skipped},
		Parents:  joinIDs(j.Parents), RunAnyway: j.RunAnyway,
		Batch: j.Batch, BatchCounted: j.BatchCounted, CallbackOf: j.CallbackOf, DeadFrom: j.DeadFrom,
	}
	return dst
}

// withContents sets r's payload and metadata from j's and returns r. A
// simulation copies them only when it seals jobs or runs bulk actions
// (whose text filter reads the payload): two copies of every row
// of every commit were a fifth of the simulator's allocations.
func withContents(r *props.JobRow, j *store.Job) *props.JobRow {
	if r != nil {
		r.Payload, r.Metadata = string(j.Payload), string(j.Metadata)
	}
	return r
}

// withContentsAfter is withContents for the row after a change, sharing
// the strings of before, the row it changed from, where its bytes are
// the same: most changes leave both as they were, and each copy of them
// is an allocation.
func withContentsAfter(r *props.JobRow, j *store.Job, before *props.JobRow) {
	if r == nil || before == nil {
		withContents(r, j)
		return
	}
	r.Payload, r.Metadata = before.Payload, before.Metadata
	if r.Payload != string(j.Payload) {
		r.Payload = string(j.Payload)
	}
	if r.Metadata != string(j.Metadata) {
		r.Metadata = string(j.Metadata)
	}
}

// jobMarks notes the rare job transitions.
func (s *sim) jobMarks(ch props.JobChange) {
	b, a := ch.Before, ch.After
	s.rateMark(b, a)
	s.dependencyMarks(ch)
	s.batchMarks(ch)
	s.deadLetterMarks(ch)
	s.historyMarks(ch)
	if b == nil || a == nil || b.Status != props.Running {
		return
	}
	if a.Status == props.Lost {
		s.res.Marks.set(MarkRescued)
	}
	if (a.Status == props.Failed || a.Status == props.Lost) && a.Attempt+1 >= s.sc.bound(a) {
		s.res.Marks.set(MarkRetryAtMax)
		if a.Attempt+1 != s.sc.MaxRetries+1 {
			s.res.Marks.set(MarkOwnBound)
		}
	}
	if a.Status == props.Failed && a.Snoozes >= s.sc.Policy.MaxSnoozes && strings.Contains(a.FailedReason, "MaxSnoozes") {
		s.res.Marks.set(MarkSnoozeCap)
	}
}

func (s *sim) traceJob(actor string, id ulid.ULID, ch props.JobChange) {
	if s.tr.quiet {
		return
	}
	b := s.names.appendJob(append(s.tr.begin(s.now, actor), "job "...), id)
	a := ch.After
	switch {
	case ch.Before == nil:
		b = append(append(b, " attempt "...), strconv.Itoa(a.Attempt)...)
		b = append(append(b, " queue "...), a.Queue...)
		b = append(append(b, " new "...), a.Status...)
		b = appendTime(append(b, " at "...), a.ScheduledAt)
		b = append(b, cronNote(a.ScheduleName)...)
	case a == nil:
		b = append(b, " deleted"...)
	default:
		b = append(append(append(b, ' '), ch.Before.Status...), '>')
		switch a.Status {
		case props.Running:
			b = append(append(b, "running by "...), s.names.worker(a.StartedBy)...)
		case props.Failed, props.Lost:
			b = s.names.appendJob(append(append(b, a.Status...), " next "...), a.NextAttemptID)
			b = append(append(b, ": "...), s.names.replaceIDs(a.FailedReason)...)
		case props.Snoozed:
			b = s.names.appendJob(append(b, "snoozed next "...), a.NextAttemptID)
		default:
			b = append(b, a.Status...)
		}
	}
	s.tr.add(b)
}

func cronNote(name string) string {
	if name == "" {
		return ""
	}
	return " for " + name
}

// stamp renders a store time as the trace's virtual seconds.
func stamp(t time.Time) string {
	var b [24]byte
	return string(appendTime(b[:0], t))
}

// appendTime appends stamp(t).
func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, '-')
	}
	return appendStamp(b, t.Sub(Epoch))
}

func (s *sim) workerChanges(actor string, writes []store.WorkerChange) []props.WorkerChange {
	ids, folded := canonicalInto(s.canonWorkerIDs, s.canonWorkers, writes, store.WorkerChange.ID,
		func(w store.WorkerChange) (*store.Worker, *store.Worker) { return w.Before, w.After }, sameWorker, ulid.ULID.Compare)
	s.canonWorkerIDs, s.canonWorkers = ids, folded
	out, rows := commitBuffers(s, &s.workerBuf, &s.workerRowBuf, len(folded))
	for i, ch := range folded {
		out[i] = props.WorkerChange{Before: fillWorkerRow(&rows[2*i], ch.Before), After: fillWorkerRow(&rows[2*i+1], ch.After)}
	}
	for i, ch := range out {
		name := s.names.worker(ids[i])
		switch {
		case ch.Before == nil:
			s.tr.printf(s.now, actor, "worker %s registered", name)
		case ch.After == nil:
			s.tr.printf(s.now, actor, "worker %s deleted", name)
		case ch.Before.ShutdownAt.IsZero() && !ch.After.ShutdownAt.IsZero():
			s.tr.printf(s.now, actor, "worker %s shut down", name)
			if p := s.workerOf(ids[i]); p != nil && p.stalledUntil > s.now {
				s.res.Marks.set(MarkStallPastDead)
			}
		default:
			s.tr.add(append(append(append(s.tr.begin(s.now, actor), "worker "...), name...), " seen"...))
		}
	}
	return out
}

// WorkerRow is a store's worker row as the property checker reads it; nil
// stays nil.
func WorkerRow(w *store.Worker) *props.WorkerRow {
	return fillWorkerRow(new(props.WorkerRow), w)
}

// fillWorkerRow is WorkerRow into dst.
func fillWorkerRow(dst *props.WorkerRow, w *store.Worker) *props.WorkerRow {
	if w == nil {
		return nil
	}
	*dst = props.WorkerRow{ID: w.ID, RegisteredAt: w.RegisteredAt, LastSeenAt: w.LastSeenAt, ShutdownAt: w.ShutdownAt}
	return dst
}

// leaseChanges converts the lease's folded change. The store folds an
// expired lease deleted and a new term inserted in one transaction into a
// single change; it stays folded, as a live history has it: the checker
// reads a new ElectedAt as a new term, not a renewal of the expired lease.
func (s *sim) leaseChanges(actor string, l *store.LeaseChange) []props.LeaseChange {
	if a := l.After; a != nil {
		s.noteTerm(a)
		b := append(append(s.tr.begin(s.now, actor), "lease "...), s.names.worker(a.WorkerID)...)
		s.tr.add(appendTime(append(b, " until "...), a.ExpiresAt))
		if a.WorkerID != s.lastHolder {
			if !s.lastHolder.IsZero() && s.inflight() > 0 {
				s.res.Marks.set(MarkLeaderChangeInFlight)
			}
			s.lastHolder = a.WorkerID
		}
	} else {
		s.tr.printf(s.now, actor, "lease gone")
	}
	return []props.LeaseChange{{Before: leaseRow(l.Before), After: leaseRow(l.After)}}
}

func leaseRow(l *store.Lease) *props.LeaseRow {
	if l == nil {
		return nil
	}
	return &props.LeaseRow{Holder: l.WorkerID, ElectedAt: l.ElectedAt, ExpiresAt: l.ExpiresAt}
}

func (s *sim) scheduleChanges(actor string, writes []store.ScheduleChange) []props.ScheduleChange {
	names, folded := canonical(writes, store.ScheduleChange.Name, func(w store.ScheduleChange) (*store.Schedule, *store.Schedule) { return w.Before, w.After },
		sameSchedule, strings.Compare)
	out := make([]props.ScheduleChange, len(folded))
	for i, ch := range folded {
		out[i] = props.ScheduleChange{Before: scheduleRow(ch.Before), After: scheduleRow(ch.After)}
	}
	for i, ch := range out {
		if a := ch.After; a != nil {
			s.tr.printf(s.now, actor, "schedule %s last %s at %s", names[i], s.names.job(a.LastScheduledJobID), stamp(a.LastScheduledAt))
		}
	}
	return out
}

func scheduleRow(r *store.Schedule) *props.ScheduleRow {
	if r == nil {
		return nil
	}
	return &props.ScheduleRow{Name: r.Name, LastScheduledAt: r.LastScheduledAt, LastScheduledJobID: r.LastScheduledJobID}
}

// deliver sends a commit's notifications to every running process, late
// or not at all when those faults strike.
func (s *sim) deliver(notes []store.Notification) {
	if len(notes) == 0 {
		return
	}
	for _, p := range s.procs {
		if p.core == nil {
			continue
		}
		delay := time.Millisecond
		if s.phase == chaos {
			if s.on(NotifyLoss) && s.procRand(p, NotifyLoss).Chance(s.rate(NotifyLoss)) {
				s.count(NotifyLoss)
				continue
			}
			if s.on(NotifyDelay) && s.procRand(p, NotifyDelay).Chance(s.rate(NotifyDelay)) {
				s.count(NotifyDelay)
				delay = s.procRand(p, NotifyDelay).DurationBetween(10*time.Millisecond, 2*time.Second)
			}
		}
		for _, n := range notes {
			s.after(delay, &event{kind: evNotify, w: p.idx, inc: p.inc, note: n})
		}
	}
}
