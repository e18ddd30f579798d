package sim

import (
	"errors"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
)

// The workload of dead letters: with the DeadLetters kind on, an operator
// gives a random queue Q the dead-letter queue Q.dead as chaos begins,
// and then, on its timer, gives or clears another's, or redrives a page
// of a dead-letter queue back (store.RedrivePage, as worker.Client.Redrive
// does). The jobs that fail for good in such a queue move there, whichever
// worker or leader decides. Its own fault kind and source, so that seeds
// without it draw as before.

// firstDeadLetter marks (in event.gen) the dead-letter queue set as chaos
// begins.
const firstDeadLetter = 1

// deadLetterPage is how many dead rows one redrive sends back at most.
const deadLetterPage = 10

// armFirstDeadLetter has the operator set a dead-letter queue as soon as
// chaos begins, when DeadLetters is on, so that short runs dead-letter.
func (s *sim) armFirstDeadLetter() {
	if s.on(DeadLetters) && s.phase == chaos {
		s.after(0, &event{kind: evDeadLetter, w: -1, gen: firstDeadLetter})
	}
}

// deadLetter has the operator set a random queue's dead-letter queue
// (when first, or one time in two), clear it (one in six) or redrive its
// dead-letter queue's failed rows (one in six) or lost ones (one in six).
func (s *sim) deadLetter(first bool) {
	defer s.armGlobalFault(DeadLetters, evDeadLetter)
	if s.phase != chaos {
		return
	}
	r := s.clientRand(DeadLetters)
	q := s.cfg.Queues[r.IntN(s.sc.Queues)]
	dead := q + ".dead"
	s.count(DeadLetters)
	switch n := r.IntN(6); {
	case first || n < 3:
		s.operator(func(tx store.Tx) error { return tx.SetQueueDeadLetter(s.ctx, q, dead) })
	case n == 3:
		s.operator(func(tx store.Tx) error { return tx.SetQueueDeadLetter(s.ctx, q, "") })
	case n == 4:
		s.redrive(r, dead, store.Failed)
	default:
		s.redrive(r, dead, store.Lost)
	}
}

// redrive sends back up to a page of dead's rows in status (failed or
// lost). A row whose
// unique key another row took meanwhile is left, with the rest of its page:
// the store refuses its retry, as it does an operator's.
func (s *sim) redrive(r *clockrng.Rand, dead string, status store.Status) {
	f := store.JobFilter{Status: status, Queue: dead, LastAttempt: true, Limit: deadLetterPage}
	newID := func(now time.Time) ulid.ULID { return clockrng.NewULID(now, r) }
	s.operator(func(tx store.Tx) error {
		_, _, _, err := store.RedrivePage(s.ctx, tx, f, newID)
		if errors.Is(err, store.ErrConflict) {
			return nil
		}
		return err
	})
}

// deadLetterMarks notes a row moved to a dead-letter queue, and a dead
// row given its next attempt (a redrive).
func (s *sim) deadLetterMarks(ch props.JobChange) {
	b, a := ch.Before, ch.After
	switch {
	case a == nil || a.DeadFrom == "":
	case b == nil || b.DeadFrom == "":
		s.res.Marks.set(MarkDeadLettered)
	case b.NextAttemptID.IsZero() && !a.NextAttemptID.IsZero():
		s.res.Marks.set(MarkRedriven)
	}
}
