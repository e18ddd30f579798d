package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/history"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
	"github.com/tickwork/tickwork/worker/engine"
)

// historyLog writes, one JSON props.Event per line, what a live run's
// checker (props.Reconstruct) needs from this process and cannot read from
// the final rows. The worker's events are translated by history.Translator,
// the mapping the simulator uses too; the log adds what only a live run
// needs: the Restarted that opens this life, leader terms as lease
// commits (the final rows hold no lease history), and store times for the
// events no transaction stamped (a declared-dead notice, a handler's end,
// the shutdown's beginning), which take the store time of the next event
// that has one.
//
// Each event is written with one Write on a file opened for appending, so
// a process killed mid-run leaves at most its last line cut short.
//
// Observe is called on the worker loop's goroutine only; shutdownCompleted
// after Run returned.
type historyLog struct {
	out     io.Writer
	process string
	tr      history.Translator

	restarted bool // the Restarted event that opens this life was written
	worker    ulid.ULID
	terms     map[ulid.ULID]time.Time // elected_at of each of our worker ids' lease term
	// pending holds translated events waiting for a store time; one
	// whose Time is set waits for a later store time than that (Observe).
	pending []props.Event
	latest  time.Time // the latest store time of an event so far
	err     error     // the first write error
}

// attachHistoryLog sets up -history-log when given: the log observes the
// worker. closeLog releases what it opened.
func attachHistoryLog(ctx context.Context, f *runFlags, opts *worker.Options) (_ context.Context, _ *historyLog, closeLog func(), _ error) {
	if f.historyLog == "" {
		return ctx, nil, func() {}, nil
	}
	h, file, err := openHistoryLog(f.historyLog, f.historyProcess)
	if err != nil {
		return nil, nil, nil, err
	}
	opts.Observer = h
	return ctx, h, func() { _ = file.Close() }, nil
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
	return &historyLog{out: out, process: process, terms: map[ulid.ULID]time.Time{}}
}

// Observe writes the history events of one worker event. The runner's
// ticks, waits, wake-ups, job passes and lease passes are left out: the log stamps them
// with the next transaction's store time, too late for their bounds to be
// judged (a live history sets no PollBound nor WakeBound), and they would
// be three lines a tick.
func (h *historyLog) Observe(e engine.Event) {
	var ev props.Event
	ok := h.tr.Translate(&e, &ev)
	if ok && (ev.Kind == props.TickStarted || ev.Kind == props.Waiting || ev.Kind == props.Notified ||
		ev.Kind == props.JobPass || ev.Kind == props.LeasePass) {
		ok = false
	}
	if e.StoreTime.IsZero() {
		if ok {
			h.pending = append(h.pending, ev)
		}
		return // store errors and other events that changed nothing
	}
	h.before(e.StoreTime)
	h.leaderTerm(e)
	if ok && ev.Kind == props.ResultFenced {
		// The store time of a pass is its transaction's start, and under
		// READ COMMITTED the completion inside it sees what committed
		// after that: the rescue that fenced the result may carry a later
		// time than the pass (seen once in the live chaos run: "fenced off
		// though the row still runs under it"). So the refusal waits for
		// the next transaction's store time, which comes after the
		// rescue's commit.
		h.pending = append(h.pending, ev) // ev.Time: the pass's store time
		return
	}
	if ok {
		h.write(ev)
	}
}

// before writes what precedes an event at store time t: the opening
// Restarted, and the events waiting for a store time, stamped t or the
// latest store time seen before it, whichever is later. An event can
// carry an earlier store time than one already seen: a job recovered
// after a reservation whose commit the worker did not see is reported
// started at that reservation's time. A handler's end waiting for a
// stamp happened after everything already logged, its own start
// included; stamped with such an earlier time it would come before its
// start in the history, and the checker would lose its decision
// (property 4, "handler decision: none", seen once in the live chaos run).
func (h *historyLog) before(t time.Time) {
	if !h.restarted {
		h.restarted = true
		h.write(props.Event{Kind: props.Restarted, Time: t})
	}
	stamp := t
	if h.latest.After(stamp) {
		stamp = h.latest
	}
	h.pending = slices.DeleteFunc(h.pending, func(ev props.Event) bool {
		if !ev.Time.IsZero() && !stamp.After(ev.Time) {
			return false // a refusal at its own transaction's time: it waits on
		}
		ev.Time = stamp
		h.write(ev)
		return true
	})
	h.latest = stamp
}

// leaderTerm writes the lease row an acquire or renewal left, or its
// release, and notes which worker this process now is.
func (h *historyLog) leaderTerm(e engine.Event) {
	t := e.StoreTime
	switch e.Kind {
	case engine.EventRegistered:
		h.worker = e.Worker
	case engine.EventLeaseAcquired:
		h.terms[e.Worker] = t
		h.writeLease(e, t)
	case engine.EventLeaseRenewed:
		elected, ok := h.terms[e.Worker]
		if !ok {
			elected = t
		}
		h.writeLease(e, elected)
	case engine.EventLeaseReleased:
		h.write(props.Event{Kind: props.Commit, Time: t, Worker: e.Worker, Leases: []props.LeaseChange{{}}})
	}
}

// writeLease writes the lease row an acquire or renewal left.
func (h *historyLog) writeLease(e engine.Event, elected time.Time) {
	row := props.LeaseRow{Holder: e.Worker, ElectedAt: elected, ExpiresAt: e.LeaseExpires}
	h.write(props.Event{Kind: props.Commit, Time: e.StoreTime, Worker: e.Worker, Leases: []props.LeaseChange{{After: &row}}})
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
		done.Running, done.LeaseHolder, err = history.Owned(ctx, tx, h.worker)
		return err
	})
	if err != nil {
		return fmt.Errorf("history log: read the state after the shutdown: %w", err)
	}
	h.before(done.Time)
	h.write(done)
	return h.err
}

// finish writes the log's last event (shutdownCompleted), reading the
// state again while the store is unavailable, for at most budget: the
// live chaos run terminates backends and restarts the server, and a
// worker that drained cleanly must not fail for a connection lost after.
func (h *historyLog) finish(st store.Store, budget time.Duration, log *slog.Logger) error {
	ctx := context.Background()
	return whileUnavailable(ctx, time.Now().Add(budget), func() error { return h.shutdownCompleted(ctx, st) }, func(err error) {
		log.Warn("history log: connection lost while reading the state after the shutdown; retrying", "err", err.Error())
	})
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
