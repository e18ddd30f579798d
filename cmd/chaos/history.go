package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/worker"
)

// loadLog reads a worker's history log: one props.Event per line. The last
// line of a process killed while writing may be cut short; it is dropped
// and counted in cut. Any other line that does not decode is an error.
func loadLog(path string) (events []props.Event, cut int, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil // killed before its first event
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	events, cut, err = props.ReadEvents(f)
	if err != nil {
		return nil, 0, fmt.Errorf("%s %w", path, err) // "path line N: ..."
	}
	return events, cut, nil
}

// params are the settings the workers ran with, as the checker needs them.
func (o options) params() props.Params {
	def := worker.DefaultConfig() // what the workers run with where options say nothing
	return props.Params{
		MaxRetries:     o.maxRetries,
		MaxSnoozes:     def.MaxSnoozes,
		MaxConcurrent:  o.concurrency,
		Backoff:        clockrng.Backoff{Base: o.retryDelay, Factor: 2},
		LeaseTTL:       o.leaseTTL,
		DeadThreshold:  o.deadAfter,
		Schedules:      []props.ScheduleSpec{beatSchedule},
		VacuumDeadRows: int64(o.vacuumDeadRows), VacuumInterval: o.vacuumInterval,
		JobRetention: def.JobRetention, WorkerRetention: def.WorkerRetention, CleanupBatch: def.CleanupBatch,
	}
}

// outcome is what the check found.
type outcome struct {
	jobs       []props.JobRow
	workers    []props.WorkerRow
	history    props.History
	violations []props.Violation
	cutLines   int
}

// check reads the logs of every life of every worker, adds the driver's
// events, rebuilds the history from the final rows and checks it.
func (r *run) check(jobs []props.JobRow, workers []props.WorkerRow) (outcome, error) {
	log := slices.Clone(r.driverLog)
	cut := 0
	for _, s := range r.fleet.slots {
		for _, path := range s.logs {
			events, n, err := loadLog(path)
			if err != nil {
				return outcome{}, fmt.Errorf("read a history log: %w", err)
			}
			log, cut = append(log, events...), cut+n
		}
	}
	h := props.Reconstruct(r.o.params(), jobs, workers, log)
	vs, err := props.Check(h)
	if err != nil {
		return outcome{}, fmt.Errorf("check the history: %w", err)
	}
	vs = append(vs, deadTooSoon(h, workers, r.o.deadAfter)...)
	return outcome{jobs: jobs, workers: workers, history: h, violations: vs, cutLines: cut}, nil
}

// deadTooSoon checks what the rebuilt history cannot (its commits do not
// say which worker made them): every worker row shut down other than by
// its own graceful shutdown was declared dead by a leader, which may only
// happen once it was unseen for longer than the threshold.
func deadTooSoon(h props.History, workers []props.WorkerRow, threshold time.Duration) []props.Violation {
	graceful := gracefullyShutDown(h.Events)
	var out []props.Violation
	for _, w := range workers {
		if w.ShutdownAt.IsZero() || graceful[w.ID] {
			continue
		}
		if unseen := w.ShutdownAt.Sub(w.LastSeenAt); unseen <= threshold {
			out = append(out, props.Violation{Property: props.SingleExecution, Index: len(h.Events), Time: w.ShutdownAt,
				Message: fmt.Sprintf("worker %s was declared dead after %v unseen, within the dead threshold %v", w.ID, unseen, threshold),
				Workers: []props.WorkerRow{w}})
		}
	}
	return out
}

// gracefullyShutDown returns the workers that began or completed a graceful
// shutdown of their own: a worker row shut down that is not among them was
// declared dead by a leader.
func gracefullyShutDown(events []props.Event) map[ulid.ULID]bool {
	graceful := map[ulid.ULID]bool{}
	for _, e := range events {
		if e.Kind == props.ShutdownBegan || e.Kind == props.ShutdownCompleted {
			graceful[e.Worker] = true
		}
	}
	return graceful
}

// writeHistory saves the rebuilt history as JSON lines for a closer look.
func writeHistory(path string, h props.History) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := props.WriteJSONLines(bw, h); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// missing returns the enqueued ids that have no row: jobs lost outright.
func missing(ids []ulid.ULID, jobs []props.JobRow) []ulid.ULID {
	have := make(map[ulid.ULID]bool, len(jobs))
	for _, j := range jobs {
		have[j.ID] = true
	}
	var out []ulid.ULID
	for _, id := range ids {
		if !have[id] {
			out = append(out, id)
		}
	}
	return out
}
