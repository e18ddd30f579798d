package mem

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// emptyObject is the metadata stored for a nil Metadata.
var emptyObject = []byte("{}")

// export copies a row for a caller, so that nothing a caller does to the
// returned bytes can reach the store. Payload, metadata and output share
// one allocation, each capped at its end so that an append to one moves
// it rather than overwrite the next.
func export(j *store.Job) store.Job {
	out := *j
	buf := make([]byte, 0, len(j.Payload)+len(j.Metadata)+len(j.Output))
	out.Payload, buf = cloneInto(buf, j.Payload)
	out.Metadata, buf = cloneInto(buf, j.Metadata)
	out.Output, _ = cloneInto(buf, j.Output)
	out.Parents = slices.Clone(j.Parents)
	return out
}

// cloneInto is bytes.Clone(b) appended to buf, which has room for it; it
// returns the clone and buf after it.
func cloneInto(buf, b []byte) (clone, rest []byte) {
	if b == nil {
		return nil, buf
	}
	n := len(buf)
	buf = append(buf, b...)
	return buf[n:len(buf):len(buf)], buf
}

// InsertJobs validates every job first (ErrInvalid), then rejects an id
// that exists or repeats in the batch (ErrConflict); nothing is written
// unless the whole batch is accepted. A job whose unique key a row holds,
// one inserted earlier in the batch included, is returned as a duplicate.
func (t *tx) InsertJobs(_ context.Context, jobs []store.NewJob) ([]store.Duplicate, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	for _, nj := range jobs {
		if err := store.ValidateNewJob(nj); err != nil {
			return nil, fmt.Errorf("insert jobs: %w", err)
		}
	}
	if rules.HasBatch(jobs) {
		if err := rules.CheckBatches(jobs); err != nil {
			return nil, fmt.Errorf("insert jobs: %w", err)
		}
	}
	if err := t.checkParents(jobs); err != nil { // first, as store/pg finds a duplicate id by inserting
		return nil, err
	}
	if err := t.checkNewIDs(jobs); err != nil {
		return nil, err
	}

	// The COPY path of store/pg is taken above copyThreshold jobs.
	skipUnique := len(jobs) > 64 && mutant.On(mutant.UniqueSkippedOnCopy)
	var queues []string
	var dups []store.Duplicate
	rows := make([]*store.Job, len(jobs))
	alias := map[ulid.ULID]ulid.ULID{} // a duplicate's id -> the row it duplicates
	for i, nj := range jobs {
		rows[i] = t.newRow(nj)
	}
	t.placeInSequences(rows)
	for i, j := range rows {
		nj := jobs[i]
		if held, ok := t.s.unique[j.UniqueKey]; ok && j.Holds() && !skipUnique {
			dups = append(dups, store.Duplicate{Index: i, Existing: export(t.s.jobs[held])})
			alias[nj.ID] = held
			continue
		}
		t.waitForParents(j, nj, alias)
		if j.Batch = nj.Batch; nj.Callback {
			t.makeBatch(j, jobs)
		}
		t.setJob(nil, j)
		if j.Status == store.Available {
			queues = append(queues, j.Queue)
		}
	}
	slices.Sort(queues)
	t.notifyQueues(queues)
	return dups, nil
}

func (t *tx) checkNewIDs(jobs []store.NewJob) error {
	var seen map[ulid.ULID]bool
	if len(jobs) > 1 {
		seen = make(map[ulid.ULID]bool, len(jobs))
	}
	for _, nj := range jobs {
		if _, ok := t.s.jobs[nj.ID]; ok || seen[nj.ID] {
			return fmt.Errorf("insert job %s: duplicate id: %w", nj.ID, store.ErrConflict)
		}
		if seen != nil {
			seen[nj.ID] = true
		}
	}
	return nil
}

// newRow builds the row for an accepted NewJob, owning copies of its bytes.
func (t *tx) newRow(nj store.NewJob) *store.Job {
	j := &store.Job{
		ID:           nj.ID,
		Queue:        nj.Queue,
		Payload:      bytes.Clone(nj.Payload),
		Metadata:     emptyObject,
		Status:       store.Available,
		CreatedAt:    t.now,
		ScheduledAt:  t.now,
		ScheduleName: nj.ScheduleName,
		UniqueKey:    names.StoredKey(nj.UniqueKey, nj.CoveredStatuses().String(), nj.UniquePeriod, t.now),
		UniqueStates: nj.CoveredStatuses(),
		Priority:     nj.Priority,
		MaxAttempts:  nj.MaxAttempts,
		PartitionKey: nj.PartitionKey,
		Sequence:     store.Sequence{Key: nj.SequenceKey, Continues: nj.SequenceContinues},
	}
	if nj.Metadata != nil {
		j.Metadata = bytes.Clone(nj.Metadata)
	}
	if !nj.ScheduledAt.IsZero() {
		j.ScheduledAt = rules.Truncate(nj.ScheduledAt)
		if j.ScheduledAt.After(t.now) {
			j.Status = store.Scheduled
		}
	}
	return j
}

// waiting is a heap entry Reserve took out and must put back.
type waiting struct {
	heap  *entryHeap
	entry entry
}

// Reserve checks the worker first: a dead or unknown worker gets
// ErrNotFound even when limit or queues would reserve nothing.
func (t *tx) Reserve(_ context.Context, worker ulid.ULID, queues []string, limit int) ([]store.Job, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if _, ok := t.s.liveWorker(worker); !ok {
		return nil, fmt.Errorf("reserve for worker %s: no live worker: %w", worker, store.ErrNotFound)
	}
	var out []store.Job
	early := t.s.skipBuf[:0] // scheduled after now, or held by its key's limit: skipped, kept
	defer func() {
		for _, w := range early {
			w.heap.push(w.entry)
		}
		clear(early)
		t.s.skipBuf = early[:0]
	}()
	open := t.s.openQueues(worker, queues, t.now)
	for len(out) < limit {
		i := t.s.nextAvailable(open)
		if i < 0 {
			break
		}
		h := open[i].heap
		e := h.pop()
		j := t.s.jobs[e.id]
		if j.ScheduledAt.After(t.now) {
			// Only when the store's clock went back; PostgreSQL skips such
			// rows too (see store/pg's reserveSQL).
			early = append(early, waiting{h, e})
			continue
		}
		if open[i].keyHeld(j.PartitionKey) {
			// Skipped, not stopped at: the jobs of other keys behind it
			// may run (the fairness of per-key limits).
			early = append(early, waiting{h, e})
			if mutant.On(mutant.KeyLimitStops) {
				open = slices.Delete(open, i, i+1)
			}
			continue
		}
		if !t.s.sequenceHead(j) {
			// Skipped too: an earlier job of its sequence holds it.
			t.s.park(j.Sequence.Key, waiting{h, e})
			continue
		}
		after := *j
		after.Status = store.Running
		after.StartedAt = t.now
		after.StartedBy = worker
		t.setJob(j, &after)
		out = append(out, export(&after))
		t.takeSlot(j.Queue, worker)
		open[i].keyTaken(j.PartitionKey)
		if open[i].room--; open[i].room == 0 {
			open = slices.Delete(open, i, i+1)
		}
	}
	slices.SortFunc(out, func(a, b store.Job) int { return a.ID.Compare(b.ID) })
	return out, nil
}

// openQueue is a queue Reserve may take jobs of, and how many at most
// (negative: no bound).
type openQueue struct {
	name string
	room int
	keys *keyRoom   // nil: no per-key limit
	heap *entryHeap // its available jobs (nil: none yet)
}

// openQueues returns none while every queue is paused (PauseAll), else
// the queues among queues that are not paused and have
// room under their limit and their rate at now, each once, in name order.
func (s *Store) openQueues(worker ulid.ULID, queues []string, now time.Time) []openQueue {
	open := s.openBuf[:0]
	if !s.pausedAll().IsZero() && !mutant.On(mutant.PauseAllIgnored) {
		return open
	}
	for _, name := range sortedNames(queues) {
		q := s.queues[name]
		if q == nil {
			open = append(open, openQueue{name: name, room: -1, heap: s.available[name]})
			continue
		}
		if !q.PausedAt.IsZero() && !mutant.On(mutant.PauseIgnored) {
			continue
		}
		room := -1
		if q.Limit > 0 {
			room = q.Limit - s.runningInQueue(name)
			if mutant.On(mutant.LimitPerWorker) {
				room = q.Limit - s.runningOf(worker, name)
			}
			if room <= 0 {
				continue
			}
		}
		if q.Rate > 0 {
			free := s.freeSlots(q, worker, now)
			if free == 0 {
				continue
			}
			if room < 0 || free < room {
				room = free
			}
		}
		open = append(open, openQueue{name: name, room: room, keys: s.keyRoomOf(q), heap: s.available[name]})
	}
	s.openBuf = open[:0]
	return open
}

// sortedNames returns names sorted without repeats: names itself when it
// is already (a worker's queue list usually is), else a sorted copy.
func sortedNames(names []string) []string {
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			return slices.Compact(slices.Sorted(slices.Values(names)))
		}
	}
	return names
}

// runningOf counts the rows of queue running under worker.
func (s *Store) runningOf(worker ulid.ULID, queue string) int {
	n := 0
	for _, id := range s.running[worker] {
		if s.jobs[id].Queue == queue {
			n++
		}
	}
	return n
}

// nextAvailable returns the index, among open, of the queue whose heap top
// is the first available row in reservation order (priority, scheduled_at,
// id); -1 when none has one.
func (s *Store) nextAvailable(open []openQueue) int {
	best := -1
	var bestEntry entry
	for i, q := range open {
		if q.heap == nil {
			continue
		}
		valid := func(e entry) bool { return s.validAvailable(e, q.name) }
		if e, ok := q.heap.top(valid); ok && (best < 0 || e.less(bestEntry)) {
			best, bestEntry = i, e
		}
	}
	return best
}

func (t *tx) RunningJobs(_ context.Context, worker ulid.ULID) ([]store.Job, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	var ids []ulid.ULID
	if !worker.IsZero() { // the zero key holds rows whose worker was deleted: nobody's
		ids = t.s.running[worker]
	}
	out := make([]store.Job, 0, len(ids))
	for _, id := range ids {
		out = append(out, export(t.s.jobs[id]))
	}
	return out, nil
}

// runningUnder returns the row id if it is running under worker. A row
// whose started_by is NULL (zero) runs under no worker, as in SQL.
func (s *Store) runningUnder(worker, id ulid.ULID) (*store.Job, bool) {
	j, ok := s.jobs[id]
	if !ok || (j.Status != store.Running || j.StartedBy != worker || worker.IsZero()) && !mutant.On(mutant.UnfencedResults) {
		return nil, false
	}
	return j, true
}

// CompleteJobs decides fencing on the rows as they were when it was called:
// an id given twice is completed once (with its first output) and fenced
// neither time, like the single UPDATE … WHERE id = ANY($ids) of pg.
func (t *tx) CompleteJobs(_ context.Context, c store.Completion) ([]ulid.ULID, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if err := c.ValidateOutputs(); err != nil {
		return nil, err
	}
	var fenced, parents []ulid.ULID
	for i, id := range c.IDs {
		if slices.Contains(c.IDs[:i], id) && !slices.Contains(fenced, id) {
			continue // completed at its first place
		}
		j, ok := t.s.runningUnder(c.Worker, id)
		if !ok {
			fenced = append(fenced, id)
			continue
		}
		after := *j
		after.Status = store.Completed
		after.CompletedAt = t.now
		after.Output = bytes.Clone(c.Output(i))
		if t.deletesAtCompletion(j, after) {
			t.deleteJobs([]ulid.ULID{id}) // nothing links to it: no SET NULL to apply
			continue
		}
		t.setJob(j, &after)
		if len(t.s.childrenOf[id]) > 0 {
			parents = append(parents, id)
		}
	}
	t.releaseChildren(parents)
	return fenced, nil
}

func (t *tx) FailJob(_ context.Context, worker, id ulid.ULID, reason string) error {
	if err := t.check(); err != nil {
		return err
	}
	j, ok := t.s.runningUnder(worker, id)
	if !ok {
		return fmt.Errorf("fail job %s for worker %s: %w", id, worker, store.ErrFenced)
	}
	after := *j
	after.Status = store.Failed
	after.FailedAt = t.now
	after.FailedReason = rules.CleanReason(reason)
	t.setJob(j, &after)
	return nil
}

func (t *tx) CancelJob(ctx context.Context, id ulid.ULID) (store.Job, error) {
	return t.CancelJobFrom(ctx, id, "")
}

// CancelJobFrom implements store.Tx: the batch of one job.
func (t *tx) CancelJobFrom(_ context.Context, id ulid.ULID, from store.Status) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	jobs, errs := t.cancelJobs([]ulid.ULID{id}, []store.Status{from})
	return jobs[0], errs[0]
}

// CancelJobsFrom implements store.Tx.
func (t *tx) CancelJobsFrom(_ context.Context, ids []ulid.ULID, from []store.Status) ([]error, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if err := rules.SameLength("cancel jobs", len(ids), len(from)); err != nil {
		return nil, err
	}
	_, errs := t.cancelJobs(ids, from)
	return errs, nil
}

// cancelJobs cancels each of ids that rules.Cancellable allows from
// from[i], judged on the row before the settling (an id given again is
// refused), then settles the rows waiting for those it cancelled, as
// store/pg's one statement for all does. It returns each cancelled row,
// and each refusal.
func (t *tx) cancelJobs(ids []ulid.ULID, from []store.Status) ([]store.Job, []error) {
	jobs, errs := make([]store.Job, len(ids)), make([]error, len(ids))
	seen := make(map[ulid.ULID]bool, len(ids))
	var done []ulid.ULID
	for i, id := range ids {
		j, ok := t.s.jobs[id]
		again := seen[id]
		seen[id] = true
		if !ok || again || !rules.Cancellable(j.Status, from[i]) {
			var row store.Job
			if ok {
				row = *j
			}
			errs[i] = rules.CancelRefusal(id, row, ok, from[i])
			continue
		}
		after := *j
		after.Status = store.Cancelled
		after.CancelledAt = t.now
		after.Parents = nil
		t.setJob(j, &after)
		if j.Status == store.Running {
			t.notify(store.Notification{Channel: store.ChannelCancel, Job: id})
		}
		jobs[i] = export(&after)
		done = append(done, id)
	}
	t.settleFrom(done, map[ulid.ULID]*store.Job{})
	return jobs, errs
}

// CancelledJobs looks each id up; the answer is sorted and compacted as
// store/pg's ORDER BY id over = ANY gives it.
func (t *tx) CancelledJobs(_ context.Context, ids []ulid.ULID) ([]ulid.ULID, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	var out []ulid.ULID
	for _, id := range ids {
		if j, ok := t.s.jobs[id]; ok && j.Status == store.Cancelled {
			out = append(out, id)
		}
	}
	slices.SortFunc(out, ulid.ULID.Compare)
	return slices.Compact(out), nil
}

func (t *tx) GetJob(_ context.Context, id ulid.ULID) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	j, ok := t.s.jobs[id]
	if !ok {
		return store.Job{}, fmt.Errorf("get job %s: %w", id, store.ErrNotFound)
	}
	return export(j), nil
}

// ListJobs rejects an unknown status, a negative limit or age with
// ErrInvalid.
func (t *tx) ListJobs(_ context.Context, f store.JobFilter) ([]store.Job, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	limit, err := rules.PageSize(f)
	if err != nil {
		return nil, err
	}
	var out []store.Job
	for _, id := range t.listOrder(f) {
		if len(out) == limit {
			break
		}
		if j, ok := t.s.jobs[id]; ok && f.Match(*j, t.now) {
			out = append(out, export(j))
		}
	}
	return out, nil
}

// listOrder returns the ids ListJobs considers, in its order.
func (t *tx) listOrder(f store.JobFilter) iter.Seq2[int, ulid.ULID] {
	if !f.NewestFirst {
		return slices.All(t.s.ids[searchAfter(t.s.ids, f.After):])
	}
	end := len(t.s.ids)
	if f.After != (ulid.ULID{}) {
		end, _ = slices.BinarySearchFunc(t.s.ids, f.After, ulid.ULID.Compare)
	}
	return slices.Backward(t.s.ids[:end])
}
