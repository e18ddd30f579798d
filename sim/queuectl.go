package sim

import (
	"github.com/tickwork/tickwork/store"
)

// The workload of the reservation-side controls: priorities on enqueued
// jobs, and an operator who pauses, resumes and limits queues during chaos
// and resumes every queue when it ends (a paused queue never settles).

// drawPriority is a job's priority: the default unless the Priorities
// kind is on. Its own source, so that seeds without it draw as before.
func (s *sim) drawPriority() int {
	if !s.on(Priorities) {
		return 0
	}
	r := s.clientRand(Priorities)
	if !r.Chance(s.rate(Priorities)) {
		return 0
	}
	s.count(Priorities)
	return store.MinPriority + r.IntN(store.MaxPriority-store.MinPriority+1)
}

// queueControl has an operator pause, resume, limit or unlimit a random
// queue.
func (s *sim) queueControl() {
	defer s.armGlobalFault(QueueControl, evQueueControl)
	if s.phase != chaos {
		return
	}
	r := s.clientRand(QueueControl)
	q := s.cfg.Queues[r.IntN(s.sc.Queues)]
	action, limit := r.IntN(4), 1+r.IntN(3)
	s.count(QueueControl)
	s.operator(func(tx store.Tx) error {
		switch action {
		case 0:
			return tx.PauseQueue(s.ctx, q)
		case 1:
			return tx.ResumeQueue(s.ctx, q)
		case 2:
			return tx.SetQueueLimit(s.ctx, q, limit)
		}
		return tx.SetQueueLimit(s.ctx, q, 0)
	})
}

// pauseAll has an operator pause every queue at once, or resume them:
// the store's one pause-all row, which queues that get jobs later obey
// too. Each queue's own pause stays as queueControl left it.
func (s *sim) pauseAll() {
	defer s.armGlobalFault(PauseAll, evPauseAll)
	if s.phase != chaos {
		return
	}
	pause := s.clientRand(PauseAll).Chance(0.5)
	s.count(PauseAll)
	s.operator(func(tx store.Tx) error {
		if pause {
			return tx.PauseAll(s.ctx)
		}
		return tx.ResumeAll(s.ctx)
	})
}

// resumeQueues resumes every queue, at the end of chaos.
func (s *sim) resumeQueues() {
	if s.on(PauseAll) {
		s.operator(func(tx store.Tx) error { return tx.ResumeAll(s.ctx) })
	}
	if !s.on(QueueControl) {
		return
	}
	s.operator(func(tx store.Tx) error {
		for _, q := range s.cfg.Queues[:s.sc.Queues] {
			if err := tx.ResumeQueue(s.ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
}

// operator runs fn as a client transaction and records its commit.
func (s *sim) operator(fn func(store.Tx) error) {
	err := s.storeTx(fn)
	if err != nil {
		s.stop(nil, err)
	}
}
