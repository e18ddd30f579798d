package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// DiffBackend makes a Backend of any store, such as store/pg with its
// clock supplied: after each transaction it reads every row back and
// reports what changed as a Commit, with the notifications the change
// implies (a row that became available; a running row cancelled; a lease
// released). Reading
// everything costs a full scan per transaction: it suits tens of seeds.
// Because the simulator reduces commits to their canonical form, a store
// run through DiffBackend gives the same trace as through its own hook.
func DiffBackend(st store.Store) Backend { return &diffBackend{Store: st} }

type diffBackend struct {
	store.Store
	prev    store.State
	commits []store.Commit
	// dead models the store's dead job rows as store/mem counts them (one
	// per existing row a commit changed or deleted), so that the vacuum
	// duty decides as on the in-memory store: PostgreSQL's own count comes
	// from statistics that lag, and the traces would differ.
	dead int64
}

// VacuumJobs runs the store's vacuum, if it has one, and empties the
// model's dead rows.
func (b *diffBackend) VacuumJobs(ctx context.Context) error {
	v, ok := b.Store.(store.Vacuumer)
	if !ok {
		return fmt.Errorf("vacuum jobs: store %T cannot vacuum", b.Store)
	}
	if err := v.VacuumJobs(ctx); err != nil {
		return err
	}
	b.dead = 0
	return nil
}

func (b *diffBackend) TakeCommits() []store.Commit {
	out := b.commits
	b.commits = nil
	return out
}

func (b *diffBackend) InTx(ctx context.Context, fn func(store.Tx) error) error {
	var now time.Time
	released, wrote := false, true
	err := b.Store.InTx(ctx, func(tx store.Tx) error {
		var err error
		if now, err = tx.Now(ctx); err != nil {
			return err
		}
		rec := &releaseRecorder{Tx: tx, dead: b.dead}
		if err := fn(rec); err != nil {
			return err
		}
		released = rec.released
		if w, ok := tx.(writeReporter); ok {
			wrote, err = w.Wrote(ctx)
		}
		return err
	})
	if err == nil && !wrote {
		return nil // nothing to read back: the rows are as the last read left them
	}
	return b.readBack(ctx, now, released, err)
}

// RunJobPass runs p as the store's own job pass, which the simulator asks
// for only of a store that has one (sim.ownPass), and records its commit as
// InTx does.
func (b *diffBackend) RunJobPass(ctx context.Context, p store.JobPass) (store.JobPassResult, error) {
	res, err := b.Store.(store.JobPasser).RunJobPass(ctx, p)
	now := res.Now
	if err != nil { // no result, yet the pass may have committed
		if nerr := b.Store.InTx(ctx, func(tx store.Tx) (err error) { now, err = tx.Now(ctx); return err }); nerr != nil {
			return res, errors.Join(err, nerr)
		}
	}
	return res, b.readBack(ctx, now, false, err)
}

// readBack records the commit of a transaction that ended with err at now,
// if it made one; released: it released the lease.
func (b *diffBackend) readBack(ctx context.Context, now time.Time, released bool, err error) error {
	// Read back even after an error: a transaction may commit and still
	// report one.
	c, changed, rerr := b.observe(ctx, now, released && err == nil)
	if rerr != nil {
		return errors.Join(err, rerr)
	}
	if changed {
		b.commits = append(b.commits, c)
	}
	return err
}

// observe reads every row back and returns what changed since the last
// read as a commit at now, and whether anything did; released adds the
// stepdown notification of a released lease, which no row shows.
func (b *diffBackend) observe(ctx context.Context, now time.Time, released bool) (store.Commit, bool, error) {
	next, err := store.Snapshot(ctx, b.Store)
	if err != nil {
		return store.Commit{}, false, fmt.Errorf("diff backend: read the rows back: %w", err)
	}
	c := b.diff(next)
	c.Now = now
	for _, ch := range c.Jobs {
		if ch.Before != nil {
			b.dead++
		}
	}
	b.prev = next
	if released {
		c.Notifications = append(c.Notifications, store.Notification{Channel: store.ChannelStepdown})
	}
	changed := len(c.Jobs)+len(c.Workers)+len(c.Schedules)+len(c.Queues)+len(c.Notifications) > 0 || c.Lease != nil
	return c, changed, nil
}

// writeReporter is a transaction that can tell whether it wrote
// anything (store/pg's): one that did not leaves every row as it was,
// since a diff backend's store runs one transaction at a time.
type writeReporter interface {
	Wrote(ctx context.Context) (bool, error)
}

// releaseRecorder notes a released lease, whose stepdown notification no
// row shows, and answers DeadJobRows from the backend's model.
type releaseRecorder struct {
	store.Tx
	released bool
	dead     int64
}

func (r *releaseRecorder) DeadJobRows(context.Context) (int64, error) { return r.dead, nil }

func (r *releaseRecorder) ReleaseLease(ctx context.Context, w ulid.ULID) (bool, error) {
	ok, err := r.Tx.ReleaseLease(ctx, w)
	r.released = r.released || (ok && err == nil)
	return ok, err
}

// diff lists the rows that differ between the previous snapshot and next.
func (b *diffBackend) diff(next store.State) store.Commit {
	var c store.Commit
	for _, ch := range diffRows(b.prev.Jobs, next.Jobs, func(j store.Job) ulid.ULID { return j.ID }, ulid.ULID.Compare, sameJob) {
		c.Jobs = append(c.Jobs, store.JobChange(ch))
		if a := ch.After; a != nil && a.Status == store.Available && (ch.Before == nil || ch.Before.Status != store.Available) {
			c.Notifications = append(c.Notifications, store.Notification{Channel: store.ChannelAvailable, Queue: a.Queue})
		}
		if b, a := ch.Before, ch.After; b != nil && a != nil && b.Status == store.Running && a.Status == store.Cancelled {
			c.Notifications = append(c.Notifications, store.Notification{Channel: store.ChannelCancel, Job: a.ID})
		}
		if n, ok := releaseNote(next, ch.Before, ch.After); ok {
			c.Notifications = append(c.Notifications, n)
		}
	}
	for _, ch := range diffRows(b.prev.Workers, next.Workers, func(w store.Worker) ulid.ULID { return w.ID }, ulid.ULID.Compare, sameWorker) {
		c.Workers = append(c.Workers, store.WorkerChange(ch))
	}
	if !sameLease(b.prev.Lease, next.Lease) {
		c.Lease = &store.LeaseChange{Before: b.prev.Lease, After: next.Lease}
	}
	for _, ch := range diffRows(b.prev.Schedules, next.Schedules, func(s store.Schedule) string { return s.Name }, strings.Compare, sameSchedule) {
		c.Schedules = append(c.Schedules, store.ScheduleChange(ch))
	}
	for _, ch := range diffRows(b.prev.Queues, next.Queues, func(q store.Queue) string { return q.Name }, strings.Compare, sameQueue) {
		qc := store.QueueChange(ch)
		c.Queues = append(c.Queues, qc)
		if qc.Wakes() {
			c.Notifications = append(c.Notifications, store.Notification{Channel: store.ChannelAvailable, Queue: qc.Name()})
		}
	}
	slices.SortFunc(c.Notifications, func(a, b store.Notification) int {
		return cmp.Or(strings.Compare(a.Queue, b.Queue), strings.Compare(string(a.Channel), string(b.Channel)), a.Job.Compare(b.Job))
	})
	c.Notifications = slices.Compact(c.Notifications)
	return c
}

// diffRows merges two key-ordered row lists into the changes between them.
func diffRows[R any, K any](prev, next []R, key func(R) K, cmpKey func(a, b K) int, same func(a, b *R) bool) []change[R] {
	var out []change[R]
	i, j := 0, 0
	for i < len(prev) || j < len(next) {
		switch {
		case j == len(next) || (i < len(prev) && cmpKey(key(prev[i]), key(next[j])) < 0):
			out = append(out, change[R]{Before: &prev[i]})
			i++
		case i == len(prev) || cmpKey(key(prev[i]), key(next[j])) > 0:
			out = append(out, change[R]{After: &next[j]})
			j++
		default:
			if !same(&prev[i], &next[j]) {
				out = append(out, change[R]{Before: &prev[i], After: &next[j]})
			}
			i++
			j++
		}
	}
	return out
}
