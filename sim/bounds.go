package sim

import "time"

// The bounds of the quiescence phase: long enough for every job left when
// the faults stop to settle, so that a run still busy after them is stuck,
// not slow.

// settleBound is how long quiescence may take at most for one job: a dead
// worker is noticed, then every attempt of the longest retry chain waits
// its backoff (the longest of any queue's policy), and every snooze its
// wait, gets promoted, reserved and run. A run with more work left when
// the faults stop gets longer (see quiescenceBound).
func (s *Scenario) settleBound() time.Duration {
	perAttempt := s.attemptBound()
	total := s.DeadThreshold.D() + s.Heartbeat.D() + 2*s.LeaseTTL.D() + s.DrainTimeout.D() + perAttempt
	for a := 0; a < s.maxBound()-1; a++ {
		total += s.longestBackoff(a) + perAttempt
	}
	total += time.Duration(s.snoozesAllowed()) * (s.Policy.SnoozeMax.D() + perAttempt)
	return (total + 20*time.Second).Truncate(time.Millisecond)
}

// attemptBound bounds how long one attempt holds a worker's slot once the
// slot is free: the worker notices within two polls or a leader pass and a
// lease, and the handler runs at most JobMax plus the timeout (an overrun
// that ignores its cancellation), on a local clock up to a quarter slow
// (drift is at most 20%).
func (s *Scenario) attemptBound() time.Duration {
	run := s.JobMax.D() + s.JobTimeout.D() + min(s.DrainTimeout.D()/10, time.Second)
	return run*5/4 + 2*s.PollInterval.D() + s.LeaderInterval.D() + s.LeaseTTL.D()
}

// quiescenceBound is how long quiescence may take when attempts attempts
// are left: the critical path of one retry chain (settleBound) plus the
// attempts spread over every slot of every worker. A work-conserving
// queue finishes within that (Graham's bound for list scheduling:
// makespan <= work/slots + longest chain), so a run still busy after it is
// stuck, not slow.
func (s *Scenario) quiescenceBound(attempts int) time.Duration {
	slots := s.Workers * s.MaxConcurrent
	rounds := (attempts + len(s.Crons)*(s.maxBound()+s.snoozesAllowed()) + slots - 1) / slots
	return s.Quiescence.D() + time.Duration(rounds)*s.attemptBound()
}
