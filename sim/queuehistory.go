package sim

import (
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
)

// The workload of queues without history: with the History kind on, an
// operator sets a random queue's history to none as chaos begins, and
// then, on its timer, sets a random queue's to none (two times in three)
// or back to keep. A completion on such a queue deletes its job's row
// when nothing keeps it (property 37). Its own fault kind and source, so
// that seeds without it draw as before.

// firstHistory marks (in event.gen) the history setting made as chaos
// begins.
const firstHistory = 1

// armFirstHistory has the operator drop a queue's history as soon as
// chaos begins, when History is on, so that short runs delete rows.
func (s *sim) armFirstHistory() {
	if s.on(History) && s.phase == chaos {
		s.after(0, &event{kind: evHistory, w: -1, gen: firstHistory})
	}
}

// queueHistory has the operator set a random queue's history: none when
// first or two times in three, keep otherwise.
func (s *sim) queueHistory(first bool) {
	defer s.armGlobalFault(History, evHistory)
	if s.phase != chaos {
		return
	}
	r := s.clientRand(History)
	q := s.cfg.Queues[r.IntN(s.sc.Queues)]
	keep := !first && r.IntN(3) == 0
	s.count(History)
	s.operator(func(tx store.Tx) error { return tx.SetQueueHistory(s.ctx, q, keep) })
}

// historyMarks notes a completion that deleted its row, and one on a
// queue without history that kept it (something needed it).
func (s *sim) historyMarks(ch props.JobChange) {
	b, a := ch.Before, ch.After
	switch {
	case b == nil || b.Status != props.Running || !s.noHistory[b.Queue]:
	case a == nil:
		s.res.Marks.set(MarkCompletionDeleted)
	case a.Status == props.Completed:
		s.res.Marks.set(MarkCompletionKept)
	}
}

// noteHistory keeps s.noHistory in step with queue's row (nil: none).
func (s *sim) noteHistory(queue string, row *store.Queue) {
	switch {
	case row != nil && row.NoHistory && s.noHistory == nil:
		s.noHistory = map[string]bool{queue: true}
	case row != nil && row.NoHistory:
		s.noHistory[queue] = true
	default:
		delete(s.noHistory, queue)
	}
}
