package sim

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// enqueueInitial inserts the scenario's starting jobs, some of them
// scheduled for later in the chaos phase.
func (s *sim) enqueueInitial() {
	r := s.master.Child("workload")
	s.enqueue(r, s.sc.Jobs, s.sc.DelayedFrac)
}

// burst enqueues a batch of jobs at once.
func (s *sim) burst() {
	defer s.armGlobalFault(Burst, evBurst)
	if s.phase != chaos {
		return
	}
	s.count(Burst)
	r := s.clientRand(Burst)
	s.enqueue(r, s.sc.Unique.burstSize(s.uniqueRnd, 1+r.IntN(s.sc.BurstSize)), 0.2)
}

// enqueue inserts n jobs on random queues in one client transaction, a
// share delayed of them scheduled up to the end of chaos.
func (s *sim) enqueue(r *clockrng.Rand, n int, delayed float64) {
	jobs := make([]store.NewJob, n)
	now := s.storeNow()
	for i := range jobs {
		j := store.NewJob{ID: clockrng.NewULID(now, s.client), Queue: s.cfg.Queues[r.IntN(s.sc.Queues)]}
		j.Payload = json.RawMessage(`{"n":` + strconv.Itoa(len(s.inserted)+i) + `}`)
		j.Priority = s.drawPriority()
		j.PartitionKey = s.drawPartitionKey()
		s.drawSequence(&j)
		if r.Chance(delayed) {
			j.ScheduledAt = now.Add(r.DurationBetween(0, max(s.sc.Chaos.D()-s.now, time.Second)).Truncate(time.Microsecond))
		}
		s.sc.Unique.keyJob(s.uniqueRnd, &j)
		s.sc.Policy.boundJob(s.policyRnd, &j)
		s.sealJob(&j)
		jobs[i] = j
	}
	s.drawParents(jobs)
	jobs = s.drawBatch(jobs)
	err := s.storeTx(func(tx store.Tx) error {
		batch, err := s.existingParents(tx, jobs)
		if err == nil {
			_, err = tx.InsertJobs(s.ctx, batch)
		}
		return err
	})
	if err != nil {
		s.stop(nil, err)
	}
}

// cancelOne has an operator cancel a job that has not ended: half the
// time one whose handler runs, so that stopping running handlers is
// exercised, else any job.
func (s *sim) cancelOne() {
	defer s.armGlobalFault(Cancel, evCancel)
	if s.phase != chaos || len(s.inserted) == 0 {
		return
	}
	id, _ := s.operatorTarget(s.clientRand(Cancel))
	var cancelled bool
	err := s.storeTx(func(tx store.Tx) error {
		j, err := tx.GetJob(s.ctx, id)
		if err != nil || j.Status.Terminal() {
			return nil // gone or ended: nothing to cancel
		}
		_, err = tx.CancelJob(s.ctx, id)
		if errors.Is(err, store.ErrConflict) {
			// Another transaction ended the job after GetJob read it
			// (only transactions that overlap): nothing to cancel.
			return nil
		}
		cancelled = err == nil
		return err
	})
	if err != nil {
		s.stop(nil, err)
		return
	}
	if cancelled {
		s.count(Cancel)
	}
}

// deleteOne has an operator delete a job: half the time one whose
// handler runs, which the store must refuse, else any job, which goes
// only if it ended and nothing keeps it (store.Tx.DeleteJob).
func (s *sim) deleteOne() {
	defer s.armGlobalFault(Deletes, evDelete)
	if s.phase != chaos || len(s.inserted) == 0 {
		return
	}
	id, running := s.operatorTarget(s.clientRand(Deletes))
	var deleted bool
	err := s.storeTx(func(tx store.Tx) error {
		_, err := tx.DeleteJob(s.ctx, id)
		if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
			if slices.Contains(running, id) {
				s.res.Marks.set(MarkDeleteRefusedRunning)
			}
			return nil // kept, or gone already
		}
		deleted = err == nil
		return err
	})
	if err != nil {
		s.stop(nil, err)
		return
	}
	if deleted {
		s.count(Deletes)
	}
}

// operatorTarget draws the job an operator's cancel or delete aims at
// from r: half the time, while handlers run, one of theirs (returned
// too), else any job inserted.
func (s *sim) operatorTarget(r *clockrng.Rand) (id ulid.ULID, running []ulid.ULID) {
	id = s.inserted[r.IntN(len(s.inserted))]
	if running = s.executing(); len(running) > 0 && r.Chance(0.5) {
		id = running[r.IntN(len(running))]
	}
	return id, running
}

// executing returns the jobs whose handlers run, process by process.
func (s *sim) executing() []ulid.ULID {
	var ids []ulid.ULID
	for _, p := range s.procs {
		for _, ex := range p.execs {
			ids = append(ids, ex.row.ID)
		}
	}
	return ids
}

// quiesce ends the chaos phase: faults stop, stalls end, and every process
// that is down starts again, so that every job can settle.
func (s *sim) quiesce() {
	s.phase = quiescence
	bound := s.sc.quiescenceBound(s.rows.attempts)
	s.tr.printf(s.now, "sim", "quiescence: faults off, %d attempts left, bound %v", s.rows.attempts, bound)
	for _, p := range s.procs {
		if p.stalledUntil > s.now {
			p.stalledUntil = s.now
			s.at(s.now, &event{kind: evStallEnd, w: p.idx, inc: p.inc})
		}
		if p.core == nil {
			s.at(s.now, &event{kind: evStart, w: p.idx, inc: p.inc})
		}
		if len(p.removedQueues) > 0 {
			s.at(s.now, &event{kind: evQueuesRestored, w: p.idx, inc: p.inc})
		}
	}
	s.resumeQueues()
	s.removeRates()
	s.after(time.Second, &event{kind: evSettleCheck, w: -1})
	s.after(bound, &event{kind: evEnd, w: -1})
}

// settleCheck ends the run once nothing is left to do: no job row waits to
// run (but behind a halted sequence, for an operator), no handler runs,
// every process is up and none is shutting down.
func (s *sim) settleCheck() {
	if s.phase != quiescence {
		return
	}
	if (s.rows.settled() || s.checker.OnlyHaltedWait()) && s.inflight() == 0 && s.allUp() {
		s.res.Settled = true
		s.finish()
		s.stopped = true
		return
	}
	s.after(time.Second, &event{kind: evSettleCheck, w: -1})
}

func (s *sim) allUp() bool {
	for _, p := range s.procs {
		if p.core == nil || p.draining {
			return false
		}
	}
	return true
}
