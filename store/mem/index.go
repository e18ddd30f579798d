package mem

import (
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// writeJob replaces the row id, currently before (nil: absent), with after
// (nil: delete) and keeps every index in step. Rollback calls it with the
// roles swapped, so each rule below must work in both directions.
func (s *Store) writeJob(id ulid.ULID, before, after *store.Job) {
	if after == nil {
		delete(s.jobs, id)
		s.staleIDs++
	} else {
		s.jobs[id] = after
		if before == nil {
			s.ids = insertID(s.ids, id)
		}
	}
	s.compactIDs()
	s.indexAvailable(id, before, after)
	s.indexScheduled(id, before, after)
	s.indexEnded(id, before, after)
	s.indexRunning(id, before, after)
	s.indexAttempts(id, before, after)
	s.indexUnique(id, before, after)
	s.indexSequence(id, before, after)
	s.indexParents(id, before, after)
	s.indexUncounted(id, before, after)
	s.indexCallbacks(before, after)
}

// indexCallbacks keeps callbackRows[b] = how many rows batch b's callback
// has: its batch goes with the last (deleteBatches).
func (s *Store) indexCallbacks(before, after *store.Job) {
	if before != nil && before.CallbackOf != (ulid.ULID{}) {
		if s.callbackRows[before.CallbackOf]--; s.callbackRows[before.CallbackOf] == 0 {
			delete(s.callbackRows, before.CallbackOf)
		}
	}
	if after != nil && after.CallbackOf != (ulid.ULID{}) {
		s.callbackRows[after.CallbackOf]++
	}
}

// indexUnique keeps unique[key] = the row holding key.
func (s *Store) indexUnique(id ulid.ULID, before, after *store.Job) {
	if before != nil && before.Holds() && s.unique[before.UniqueKey] == id {
		delete(s.unique, before.UniqueKey)
	}
	if after != nil && after.Holds() {
		s.unique[after.UniqueKey] = id
	}
}

// compactIDs drops deleted ids from the sorted id list once they make up
// half of it, so deletes cost O(1) amortised.
func (s *Store) compactIDs() {
	if s.staleIDs < 64 || s.staleIDs*2 < len(s.ids) {
		return
	}
	live := s.ids[:0]
	for _, id := range s.ids {
		if _, ok := s.jobs[id]; ok {
			live = append(live, id)
		}
	}
	clear(s.ids[len(live):])
	s.ids = live
	s.staleIDs = 0
}

func status(j *store.Job) store.Status {
	if j == nil {
		return ""
	}
	return j.Status
}

func (s *Store) indexAvailable(id ulid.ULID, before, after *store.Job) {
	if status(after) != store.Available || status(before) == store.Available {
		return
	}
	h := s.available[after.Queue]
	if h == nil {
		h = &entryHeap{}
		s.available[after.Queue] = h
	}
	h.push(availableEntry(id, after))
}

// availableEntry is a row's entry in its queue's available heap.
func availableEntry(id ulid.ULID, j *store.Job) entry {
	pri := j.Priority
	if mutant.On(mutant.PriorityInverted) {
		pri = -pri
	}
	return entry{pri: pri, at: stampOf(j.ScheduledAt), id: id}
}

func (s *Store) indexScheduled(id ulid.ULID, before, after *store.Job) {
	if status(after) != store.Scheduled {
		return
	}
	if status(before) == store.Scheduled && before.ScheduledAt.Equal(after.ScheduledAt) {
		return
	}
	s.scheduled.push(entry{at: stampOf(after.ScheduledAt), id: id})
}

func (s *Store) indexEnded(id ulid.ULID, before, after *store.Job) {
	if after == nil || !after.Status.Terminal() || (before != nil && before.Status.Terminal()) {
		return
	}
	s.ended.push(entry{at: stampOf(endedAt(after)), id: id})
}

// endedAt is coalesce(completed_at, failed_at, cancelled_at): when a
// terminal row ended.
func endedAt(j *store.Job) time.Time {
	switch {
	case !j.CompletedAt.IsZero():
		return j.CompletedAt
	case !j.FailedAt.IsZero():
		return j.FailedAt
	}
	return j.CancelledAt
}

// indexRunning keeps running[worker] = the sorted ids of the rows running
// under worker (the zero key holds running rows whose worker was deleted).
func (s *Store) indexRunning(id ulid.ULID, before, after *store.Job) {
	wasRunning, isRunning := status(before) == store.Running, status(after) == store.Running
	if wasRunning && isRunning && before.StartedBy == after.StartedBy {
		return
	}
	if wasRunning {
		s.runningIn[before.Queue]--
		w := before.StartedBy
		if ids := removeID(s.running[w], id); len(ids) == 0 {
			delete(s.running, w)
		} else {
			s.running[w] = ids
		}
	}
	if isRunning {
		s.runningIn[after.Queue]++
		s.running[after.StartedBy] = insertID(s.running[after.StartedBy], id)
	}
}

// indexAttempts keeps prevOf[next] = the row whose next_attempt_id is next,
// which ON DELETE SET NULL needs.
func (s *Store) indexAttempts(id ulid.ULID, before, after *store.Job) {
	var was, is ulid.ULID
	if before != nil {
		was = before.NextAttemptID
	}
	if after != nil {
		is = after.NextAttemptID
	}
	if was == is {
		return
	}
	if was != (ulid.ULID{}) && s.prevOf[was] == id {
		delete(s.prevOf, was)
	}
	if is != (ulid.ULID{}) {
		s.prevOf[is] = id
	}
}

// validAvailable reports whether an entry of queue's heap still names an
// available row of that queue, in that row's place. An id can come back
// after retention deleted its row, on another queue or at another time:
// the deleted row's entry must not place the new one.
func (s *Store) validAvailable(e entry, queue string) bool {
	j := s.jobs[e.id]
	if status(j) != store.Available || j.Queue != queue {
		return false
	}
	own := availableEntry(e.id, j)
	return e.pri == own.pri && e.at == own.at
}

// validScheduled reports whether a heap entry still names a scheduled row
// with that scheduled_at.
func (s *Store) validScheduled(e entry) bool {
	j := s.jobs[e.id]
	return status(j) == store.Scheduled && stampOf(j.ScheduledAt) == e.at
}

// validEnded reports whether a heap entry still names a terminal row that
// ended at that time. The time matters: a row that ended in a rolled-back
// transaction left an entry behind, and may end again later.
func (s *Store) validEnded(e entry) bool {
	j := s.jobs[e.id]
	return j != nil && j.Status.Terminal() && stampOf(endedAt(j)) == e.at
}
