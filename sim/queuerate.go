package sim

import (
	"time"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
)

// The workload of rate limits: an operator sets a random queue's rate to 1
// to 3 starts per 0.5 to 5 s of store time, or removes it, during chaos,
// and removes every rate when chaos ends (the quiescence bound does not
// count with rates). Its own fault kind and source, so that seeds without
// it draw as before.

// queueRate has the operator set or remove a random queue's rate.
func (s *sim) queueRate() {
	defer s.armGlobalFault(QueueRate, evQueueRate)
	if s.phase != chaos {
		return
	}
	r := s.clientRand(QueueRate)
	q := s.cfg.Queues[r.IntN(s.sc.Queues)]
	n := 1 + r.IntN(3)
	period := r.DurationBetween(500*time.Millisecond, 5*time.Second).Truncate(time.Millisecond)
	if r.IntN(3) == 0 {
		n, period = 0, 0
	}
	s.count(QueueRate)
	s.operator(func(tx store.Tx) error { return tx.SetQueueRate(s.ctx, q, n, period) })
}

// removeRates removes every queue's rate, at the end of chaos.
func (s *sim) removeRates() {
	if !s.on(QueueRate) {
		return
	}
	s.operator(func(tx store.Tx) error {
		for _, q := range s.cfg.Queues[:s.sc.Queues] {
			if err := tx.SetQueueRate(s.ctx, q, 0, 0); err != nil {
				return err
			}
		}
		return nil
	})
}

// rateWindow returns the starts the simulator keeps of queue's rate.
func (s *sim) rateWindow(queue string) *props.RateWindow {
	if s.rates == nil {
		s.rates = map[string]*props.RateWindow{}
	}
	w := s.rates[queue]
	if w == nil {
		w = &props.RateWindow{}
		s.rates[queue] = w
	}
	return w
}

// rateOf is a queues row's rate (none for no row).
func rateOf(q *store.Queue) (int, time.Duration) {
	if q == nil {
		return 0, 0
	}
	return q.Rate, q.RatePeriod
}

// rateMark notes a start that fills its queue's rate window.
func (s *sim) rateMark(b, a *props.JobRow) {
	if b == nil || a == nil || b.Status == props.Running || a.Status != props.Running {
		return
	}
	w := s.rates[a.Queue]
	if w == nil || w.N == 0 {
		return
	}
	w.Start(a.StartedAt)
	if w.In(a.StartedAt) == w.N {
		s.res.Marks.set(MarkRateBound)
	}
}
