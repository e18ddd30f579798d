package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

// historyLog writes, one JSON props.Event per line, what a live run's
// checker (props.Reconstruct) needs from this process and cannot read from
// the final rows: leader terms, leader duties, handler executions with
// their outcome, fenced results, being declared dead, the graceful
// shutdown. Every event carries store time, taken from the worker's
// observer events (the transaction's now()), never the local clock.
//
// Each event is written with one Write on a file opened for appending, so
// a process killed mid-run leaves at most its last line cut short.
//
// Observe is called on the worker loop's goroutine only; signalled may be
// called from any goroutine; shutdownCompleted after Run returned.
type historyLog struct {
	out     io.Writer
	process string
	// signal is the local time the process was asked to shut down. Events
	// of ticks that began later belong to the graceful shutdown.
	signal atomic.Pointer[time.Time]

	restarted bool // the Restarted event that opens this life was written
	began     bool // ShutdownBegan was written
	worker    ulid.ULID
	terms     map[ulid.ULID]time.Time // elected_at of each of our worker ids' lease term
	expires   time.Time               // the expiry of the lease as we last wrote it
	duties    *props.Event            // duties in progress, ended by the next event at another time
	dead      *props.Event            // DeclaredDead waiting for a store time
	released  map[ulid.ULID]bool      // jobs released at shutdown: their results are not the handler's
	err       error                   // the first write error
}

// attachHistoryLog sets up -history-log when given: the log observes the
// worker, and the returned context, the one to run the worker with, ends
// only once the log has noted when the shutdown was asked for, so that
// every tick of the drain is known to come after it. closeLog releases
// what it opened.
func attachHistoryLog(ctx context.Context, f *runFlags, opts *worker.Options) (_ context.Context, _ *historyLog, closeLog func(), _ error) {
	if f.historyLog == "" {
		return ctx, nil, func() {}, nil
	}
	h, file, err := openHistoryLog(f.historyLog, f.historyProcess)
	if err != nil {
		return nil, nil, nil, err
	}
	opts.Observer = h
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		h.signalled(time.Now())
		cancel()
	})
	return runCtx, h, func() {
		stop()
		cancel()
		_ = file.Close()
	}, nil
}

// openHistoryLog opens path for appending (creating it) and returns a log
// naming this process process.
func openHistoryLog(path, process string) (*historyLog, io.Closer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("-history-log: %w", err)
	}
	return newHistoryLog(f, process), f, nil
}

func newHistoryLog(out io.Writer, process string) *historyLog {
	return &historyLog{out: out, process: process, terms: map[ulid.ULID]time.Time{}, released: map[ulid.ULID]bool{}}
}

// signalled records that the shutdown was asked for at local time t.
func (h *historyLog) signalled(t time.Time) { h.signal.CompareAndSwap(nil, &t) }

// Observe translates one worker event into history events.
func (h *historyLog) Observe(e worker.Event) {
	if e.Kind == worker.EventDeclaredDead {
		// The transaction that noticed it rolled back: the next event's
		// store time stands for it.
		h.dead = &props.Event{Kind: props.DeclaredDead, Worker: e.Worker}
		return
	}
	if e.StoreTime.IsZero() {
		return // store errors and other events that changed nothing
	}
	h.before(e.StoreTime, e.Local)
	h.translate(e)
}

// before writes what must precede an event at store time t from a tick
// that began at local time local: the opening Restarted, the end of leader
// duties at another time, a pending DeclaredDead, and ShutdownBegan once
// the event belongs to the shutdown (a tick begun after the signal, or the
// release and shutdown transactions, which have no local time).
func (h *historyLog) before(t, local time.Time) {
	if !h.restarted {
		h.restarted = true
		h.write(props.Event{Kind: props.Restarted, Time: t})
	}
	if h.duties != nil && !h.duties.Time.Equal(t) {
		h.endDuties()
	}
	if h.dead != nil {
		h.dead.Time = t
		h.write(*h.dead)
		h.dead = nil
	}
	if sig := h.signal.Load(); !h.began && sig != nil && (local.IsZero() || local.After(*sig)) {
		h.began = true
		h.write(props.Event{Kind: props.ShutdownBegan, Time: t, Worker: h.worker})
	}
}

func (h *historyLog) endDuties() {
	h.write(props.Event{Kind: props.DutiesEnded, Time: h.duties.Time, Worker: h.duties.Worker})
	h.duties = nil
}

// translate writes the history events of one worker event.
func (h *historyLog) translate(e worker.Event) {
	t := e.StoreTime
	switch e.Kind {
	case worker.EventRegistered:
		h.worker = e.Worker
	case worker.EventLeaseAcquired:
		h.terms[e.Worker] = t
		h.writeLease(e, t)
	case worker.EventLeaseRenewed:
		elected, ok := h.terms[e.Worker]
		if !ok {
			elected = t
		}
		h.writeLease(e, elected)
	case worker.EventLeaseReleased:
		h.write(props.Event{Kind: props.Commit, Time: t, Worker: e.Worker, Leases: []props.LeaseChange{{}}})
	case worker.EventDutiesStarted:
		d := props.Event{Kind: props.DutiesStarted, Time: t, Worker: e.Worker, LeaseExpires: h.expires}
		h.duties = &d
		h.write(d)
	case worker.EventScheduleFired:
		h.write(props.Event{Kind: props.ScheduleFired, Time: t, Worker: e.Worker, Job: e.Job.ID, Schedule: e.Schedule, CronTime: e.CronTime})
	case worker.EventJobStarted:
		h.write(props.Event{Kind: props.ExecStarted, Time: t, Worker: e.Worker, Job: e.Job.ID})
	case worker.EventReleasedAtShutdown:
		h.released[e.Job.ID] = true
	case worker.EventResultFenced:
		h.write(props.Event{Kind: props.ResultFenced, Time: t, Worker: e.Worker, Job: e.Job.ID})
		h.writeEnded(e)
	case worker.EventResultRecorded:
		h.writeEnded(e)
	}
}

// writeLease writes the lease row an acquire or renewal left.
func (h *historyLog) writeLease(e worker.Event, elected time.Time) {
	h.expires = e.LeaseExpires
	row := props.LeaseRow{Holder: e.Worker, ElectedAt: elected, ExpiresAt: e.LeaseExpires}
	h.write(props.Event{Kind: props.Commit, Time: e.StoreTime, Worker: e.Worker, Leases: []props.LeaseChange{{After: &row}}})
}

// writeEnded ends the execution of a handler that returned, unless the
// result is that of a release at shutdown (the handler may still run).
func (h *historyLog) writeEnded(e worker.Event) {
	if h.released[e.Job.ID] {
		return
	}
	h.write(props.Event{Kind: props.ExecEnded, Time: e.StoreTime, Worker: e.Worker, Job: e.Job.ID,
		Decision: props.Decision(e.Decision.String()), Reason: e.Reason})
}

// shutdownCompleted ends the log after a clean return from Run: it reads
// from st the jobs still running under the worker and the lease holder,
// and writes ShutdownCompleted at that transaction's store time.
func (h *historyLog) shutdownCompleted(ctx context.Context, st store.Store) error {
	var done props.Event
	err := st.InTx(ctx, func(tx store.Tx) error {
		now, err := tx.Now(ctx)
		if err != nil {
			return err
		}
		done = props.Event{Kind: props.ShutdownCompleted, Time: now, Worker: h.worker}
		if !h.worker.IsZero() {
			jobs, err := tx.RunningJobs(ctx, h.worker)
			if err != nil {
				return err
			}
			for _, j := range jobs {
				done.Running = append(done.Running, j.ID)
			}
		}
		lease, err := tx.GetLease(ctx)
		if err == nil {
			done.LeaseHolder = lease.WorkerID
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("history log: read the state after the shutdown: %w", err)
	}
	h.before(done.Time, time.Time{})
	if h.duties != nil {
		h.endDuties()
	}
	h.write(done)
	return h.err
}

// write appends one event as one line; the first error is kept.
func (h *historyLog) write(e props.Event) {
	e.Process = h.process
	line, err := json.Marshal(e)
	if err == nil {
		_, err = h.out.Write(append(line, '\n'))
	}
	if err != nil && h.err == nil {
		h.err = fmt.Errorf("history log: %w", err)
	}
}
