package mem

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// tx is one transaction. Its change lists are both the undo log (replayed in
// reverse on rollback) and, on commit, the store.Commit given to the hook.
type tx struct {
	s    *Store
	now  time.Time
	done atomic.Bool

	jobs      []store.JobChange
	workers   []store.WorkerChange
	lease     *store.LeaseChange
	schedules []store.ScheduleChange
	queues    []store.QueueChange
	slots     []slotsBefore // first write of each queue's rate slots, for the rollback
	notes     []store.Notification
	// vacuumBefore is the vacuums row before the transaction wrote it,
	// kept for the rollback once vacuumWritten.
	vacuumBefore  *store.Vacuum
	vacuumWritten bool

	// The first changes of jobs and workers go here, in the transaction's
	// own allocation: most transactions change a few rows.
	jobsBuf    [2]store.JobChange
	workersBuf [1]store.WorkerChange

	released []ulid.ULID // rows that left Waiting (dependencies.go)
	// batchesBefore holds each batches row as it was before the
	// transaction first wrote it, for the rollback (batch.go).
	batchesBefore []batchBefore
	// awaitedBefore holds each awaited mark the transaction changed, as
	// it was before (awaited.go).
	awaitedBefore []awaitMark
}

var _ store.Tx = (*tx)(nil)

// check is called first by every method so that a Tx kept past its InTx
// fails instead of touching a store another transaction now owns.
func (t *tx) check() error {
	if t.done.Load() {
		return ErrTxDone
	}
	return nil
}

// Now returns the transaction's time.
func (t *tx) Now(context.Context) (time.Time, error) {
	if err := t.check(); err != nil {
		return time.Time{}, err
	}
	return t.now, nil
}

func (t *tx) commit() {
	t.checkCommit()
	t.countDeadRows()
	t.notifyReleased()
	if len(t.notes) > 0 {
		t.s.listeners.send(t.notes)
	}
	if t.s.hook != nil {
		t.s.hook(store.Commit{
			Now:           t.now,
			Jobs:          t.jobs,
			Workers:       t.workers,
			Lease:         t.lease,
			Schedules:     t.schedules,
			Queues:        t.queues,
			Notifications: t.notes,
		})
	}
}

func (t *tx) rollback() {
	s := t.s
	for i := len(t.jobs) - 1; i >= 0; i-- {
		c := t.jobs[i]
		s.writeJob(c.ID(), c.After, c.Before)
	}
	for i := len(t.workers) - 1; i >= 0; i-- {
		c := t.workers[i]
		s.writeWorker(c.ID(), c.Before)
	}
	if t.lease != nil {
		s.lease = t.lease.Before
	}
	if t.vacuumWritten {
		s.vacuum = t.vacuumBefore
	}
	for i := len(t.schedules) - 1; i >= 0; i-- {
		c := t.schedules[i]
		s.writeSchedule(c.Name(), c.Before)
	}
	for i := len(t.queues) - 1; i >= 0; i-- {
		c := t.queues[i]
		s.writeQueue(c.Name(), c.Before)
	}
	for _, b := range t.slots {
		s.writeSlots(b.key, b.last)
	}
	for i := len(t.batchesBefore) - 1; i >= 0; i-- {
		t.s.writeBatch(t.batchesBefore[i].id, t.batchesBefore[i].batch)
	}
	t.undoAwaited()
}

// setJob records and applies one job row write.
func (t *tx) setJob(before, after *store.Job) {
	c := store.JobChange{Before: before, After: after}
	if t.jobs == nil {
		t.jobs = t.jobsBuf[:0]
	}
	t.jobs = append(t.jobs, c)
	t.s.writeJob(c.ID(), before, after)
	switch {
	case after == nil:
		t.setAwaited(c.ID(), false)
	case after.Status == store.Waiting:
		for _, p := range after.Parents {
			t.setAwaited(p, true)
		}
	}
}

// setWorker records and applies one worker row write.
func (t *tx) setWorker(before, after *store.Worker) {
	c := store.WorkerChange{Before: before, After: after}
	if t.workers == nil {
		t.workers = t.workersBuf[:0]
	}
	t.workers = append(t.workers, c)
	t.s.writeWorker(c.ID(), after)
}

// setLease records and applies a write of the lease row.
func (t *tx) setLease(after *store.Lease) {
	if t.lease == nil {
		t.lease = &store.LeaseChange{Before: t.s.lease}
	}
	t.lease.After = after
	t.s.lease = after
}

// setSchedule records and applies one schedule row write.
func (t *tx) setSchedule(before, after *store.Schedule) {
	c := store.ScheduleChange{Before: before, After: after}
	t.schedules = append(t.schedules, c)
	t.s.writeSchedule(c.Name(), after)
}

// notify queues n for delivery at commit. Like PostgreSQL's NOTIFY, a
// notification identical to one already queued by this transaction is
// dropped, so listeners see each (channel, queue) once per commit, in the
// order first sent.
func (t *tx) notify(n store.Notification) {
	if !slices.Contains(t.notes, n) {
		t.notes = append(t.notes, n)
	}
}

// notifyQueues sends one available notification per queue of the sorted
// list queues.
func (t *tx) notifyQueues(queues []string) {
	for _, q := range queues {
		t.notify(store.Notification{Channel: store.ChannelAvailable, Queue: q})
	}
}
