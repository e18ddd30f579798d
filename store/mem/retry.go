package mem

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

func (t *tx) ScheduleRetry(_ context.Context, id, newID ulid.ULID, delay time.Duration) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	return t.scheduleRetry(id, newID, delay)
}

// RetryJobs retries the jobs in turn, as ScheduleRetry does each.
func (t *tx) RetryJobs(_ context.Context, ids, newIDs []ulid.ULID, delay time.Duration) ([]error, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if err := rules.SameLength("retry jobs", len(ids), len(newIDs)); err != nil {
		return nil, err
	}
	errs := make([]error, len(ids))
	for i, id := range ids {
		_, errs[i] = t.scheduleRetry(id, newIDs[i], delay)
	}
	return errs, nil
}

// scheduleRetry is ScheduleRetry in a transaction checked usable.
func (t *tx) scheduleRetry(id, newID ulid.ULID, delay time.Duration) (store.Job, error) {
	old, ok := t.s.jobs[id]
	r := rules.RetryOf{Found: ok}
	if ok {
		r.Row, r.Next = *old, old.NextAttemptID
		_, r.IDTaken = t.s.jobs[newID]
		if old.UniqueKey != "" {
			r.Holder = t.s.unique[old.UniqueKey]
		}
	}
	if err := rules.RetryRefusal(id, newID, r); err != nil {
		return store.Job{}, err
	}
	return t.insertNext(old, newID, delay, old.Attempt+1, old.Snoozes), nil
}

// SnoozeJob is fenced as FailJob is, then checks the new id.
func (t *tx) SnoozeJob(_ context.Context, worker, id, newID ulid.ULID, delay time.Duration) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	j, ok := t.s.runningUnder(worker, id)
	if !ok {
		return store.Job{}, fmt.Errorf("snooze job %s for worker %s: %w", id, worker, store.ErrFenced)
	}
	if _, taken := t.s.jobs[newID]; taken {
		return store.Job{}, fmt.Errorf("snooze job %s as %s: duplicate id: %w", id, newID, store.ErrConflict)
	}
	snoozed := *j
	snoozed.Status, snoozed.CompletedAt = store.Snoozed, t.now
	t.setJob(j, &snoozed)
	attempt := j.Attempt
	if mutant.On(mutant.SnoozeConsumesAttempt) {
		attempt++
	}
	return t.insertNext(t.s.jobs[id], newID, delay, attempt, j.Snoozes+1), nil
}

// insertNext inserts the row that follows old (a retry or a snooze's),
// numbered attempt with snoozes snoozes before it, links old to it and
// moves the schedules that pointed at old.
func (t *tx) insertNext(old *store.Job, newID ulid.ULID, delay time.Duration, attempt, snoozes int) store.Job {
	next := &store.Job{
		ID:           newID,
		Queue:        rules.RetryQueue(*old),
		Payload:      old.Payload,
		Metadata:     old.Metadata,
		Status:       rules.NextStatus(delay),
		Attempt:      attempt,
		CreatedAt:    t.now,
		ScheduledAt:  t.now.Add(delay.Truncate(time.Microsecond)),
		ScheduleName: old.ScheduleName,
		UniqueKey:    old.UniqueKey,
		UniqueStates: old.UniqueStates,
		Priority:     old.Priority,
		MaxAttempts:  old.MaxAttempts,
		Snoozes:      snoozes,
		PartitionKey: old.PartitionKey,
		Sequence:     store.Sequence{Key: old.Sequence.Key, Pos: old.Sequence.Pos, Continues: old.Sequence.Continues},
		Batch:        rules.RetryBatch(*old),
		CallbackOf:   old.CallbackOf,
	}
	t.setJob(nil, next)
	if t.s.awaited[old.ID] {
		t.setAwaited(newID, true) // store/pg's insert copies the mark
	}
	linked := *old
	linked.NextAttemptID = newID
	t.setJob(old, &linked)
	t.repointChildren(old.ID, newID)
	t.repointSchedules(map[ulid.ULID]bool{old.ID: true}, newID)
	if next.Status == store.Available {
		t.notifyQueues([]string{next.Queue})
	}
	return export(next)
}

// RescueLostJobs marks lost, in id order, the running rows whose worker is
// shut down or deleted.
func (t *tx) RescueLostJobs(context.Context) ([]store.Job, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	var ids []ulid.ULID
	for worker, running := range t.s.running {
		if _, alive := t.s.liveWorker(worker); !alive {
			ids = append(ids, running...)
		}
	}
	slices.SortFunc(ids, ulid.ULID.Compare)
	if mutant.On(mutant.RescueOneAPass) && len(ids) > 1 {
		ids = ids[:1]
	}
	out := make([]store.Job, 0, len(ids))
	for _, id := range ids {
		j := t.s.jobs[id]
		after := *j
		after.Status = store.Lost
		after.FailedAt = t.now
		after.FailedReason = rules.LostReason(j.StartedBy)
		t.setJob(j, &after)
		out = append(out, export(&after))
	}
	return out, nil
}

// PromoteScheduledJobs promotes in (scheduled_at, id) order.
func (t *tx) PromoteScheduledJobs(context.Context) (int, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	var queues []string
	now := stampOf(t.now)
	for {
		e, ok := t.s.scheduled.top(t.s.validScheduled)
		if !ok || e.at.compare(now) > 0 {
			break
		}
		t.s.scheduled.pop()
		j := t.s.jobs[e.id]
		after := *j
		after.Status = store.Available
		t.setJob(j, &after)
		queues = append(queues, j.Queue)
		if mutant.On(mutant.PromoteOneAPass) {
			break
		}
	}
	slices.Sort(queues)
	t.notifyQueues(queues)
	return len(queues), nil
}

// DeleteOldJobs deletes in (end time, id) order, then applies ON DELETE SET
// NULL: next_attempt_id of surviving rows in id order, then schedules in
// name order.
func (t *tx) DeleteOldJobs(_ context.Context, age time.Duration, limit int) (int, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	before := stampOf(t.now.Add(-age.Truncate(time.Microsecond))) // the end times retention deletes
	if mutant.On(mutant.RetentionHalved) {
		before = stampOf(t.now.Add(-age.Truncate(time.Microsecond) / 2))
	}
	gone := map[ulid.ULID]bool{}
	var order []ulid.ULID
	// kept: rows that halt their sequence (store.Sequence), that a
	// waiting row waits for, whose batch has not counted them, or that
	// an earlier attempt names, kept until released, settled, counted or
	// that attempt is gone.
	var kept []entry
	defer func() {
		for _, e := range kept {
			t.s.ended.push(e)
		}
	}()
	if mutant.On(mutant.CleanupBatchIgnored) {
		limit = len(t.s.jobs) + 1
	}
	for len(gone) < limit {
		e, ok := t.s.ended.top(t.s.validEnded)
		if !ok || e.at.compare(before) >= 0 {
			break
		}
		t.s.ended.pop()
		if gone[e.id] {
			continue
		}
		if rules.CheckDelete(*t.s.jobs[e.id], t.kept(e.id)) != nil || t.skipFailed(e.id) {
			kept = append(kept, e)
			continue
		}
		gone[e.id] = true
		order = append(order, e.id)
	}
	t.deleteJobs(order)
	return len(gone), nil
}

// skipFailed is mutant.RetentionSkipsFailed's edit: a failed or lost
// row stays.
func (t *tx) skipFailed(id ulid.ULID) bool {
	st := t.s.jobs[id].Status
	return mutant.On(mutant.RetentionSkipsFailed) && (st == store.Failed || st == store.Lost)
}

// kept is what keeps row id from deletion besides its status.
func (t *tx) kept(id ulid.ULID) rules.Kept {
	_, chained := t.s.prevOf[id]
	return rules.Kept{Awaited: len(t.s.childrenOf[id]) > 0, Uncounted: t.s.uncounted[id], Chained: chained}
}

// deleteJobs deletes the rows of ids in their order, then applies ON
// DELETE SET NULL: next_attempt_id of surviving rows in id order, then
// schedules in name order; the last row of a callback takes its batch
// along.
func (t *tx) deleteJobs(ids []ulid.ULID) {
	if len(ids) == 0 {
		return
	}
	var prev, callbacks []ulid.ULID
	gone := make(map[ulid.ULID]bool, len(ids))
	for _, id := range ids {
		gone[id] = true
		if p, ok := t.s.prevOf[id]; ok {
			prev = append(prev, p)
		}
		j := t.s.jobs[id]
		if j.CallbackOf != (ulid.ULID{}) {
			callbacks = append(callbacks, j.CallbackOf)
		}
		t.setJob(j, nil)
	}
	slices.SortFunc(prev, ulid.ULID.Compare)
	for _, p := range prev {
		if j, ok := t.s.jobs[p]; ok {
			after := *j
			after.NextAttemptID = ulid.ULID{}
			t.setJob(j, &after)
		}
	}
	t.repointSchedules(gone, ulid.ULID{})
	t.deleteBatches(gone, callbacks)
}

// DeleteJob deletes one row that rules.CheckDelete allows.
func (t *tx) DeleteJob(_ context.Context, id ulid.ULID) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	return t.deleteJob(id, "")
}

// DeleteJobs deletes the jobs in turn, as DeleteJob does each, those
// still from[i].
func (t *tx) DeleteJobs(_ context.Context, ids []ulid.ULID, from []store.Status) ([]error, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if err := rules.SameLength("delete jobs", len(ids), len(from)); err != nil {
		return nil, err
	}
	errs := make([]error, len(ids))
	for i, id := range ids {
		_, errs[i] = t.deleteJob(id, from[i])
	}
	return errs, nil
}

// deleteJob is DeleteJob, of a job still from ("": any), in a
// transaction checked usable.
func (t *tx) deleteJob(id ulid.ULID, from store.Status) (store.Job, error) {
	j, ok := t.s.jobs[id]
	if !ok {
		return store.Job{}, fmt.Errorf("delete job %s: %w", id, store.ErrNotFound)
	}
	if err := rules.DeleteFrom(*j, from); err != nil {
		return store.Job{}, err
	}
	if err := rules.CheckDelete(*j, t.kept(id)); err != nil {
		return store.Job{}, err
	}
	row := *j
	t.deleteJobs([]ulid.ULID{id})
	return row, nil
}
