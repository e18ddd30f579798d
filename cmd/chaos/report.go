package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/worker"
)

// figures are the counts a run reports.
type figures struct {
	enqueued, enqueueErrors, rows, chains          int
	completed, failedFinal, abandoned, retried     int
	lost, released, failedByDecision, scheduleRuns int
	registrations, declaredDead                    int
	executions, fenced, terms, events              int
}

// count works the figures out of the final rows and the history.
func count(o outcome, enq *enqueuer, maxRetries int) figures {
	f := figures{enqueued: len(enq.ids), enqueueErrors: enq.errors, rows: len(o.jobs), registrations: len(o.workers), events: len(o.history.Events)}
	for _, j := range o.jobs {
		if j.Attempt == 0 {
			f.chains++
			if j.ScheduleName != "" {
				f.scheduleRuns++
			}
		}
		if !j.NextAttemptID.IsZero() {
			f.retried++
		}
		switch {
		case j.Status == props.Completed:
			f.completed++
		case j.Status == props.Lost:
			f.lost++
		case j.Status == props.Failed && j.FailedReason == worker.ReasonShutdown:
			f.released++
		}
		if (j.Status == props.Failed || j.Status == props.Lost) && j.NextAttemptID.IsZero() {
			f.failedFinal++
			if j.Attempt >= maxRetries {
				f.abandoned++
			} else {
				f.failedByDecision++
			}
		}
	}
	for _, e := range o.history.Events {
		switch e.Kind {
		case props.ExecStarted:
			f.executions++
		case props.ResultFenced:
			f.fenced++
		case props.Commit:
			for _, l := range e.Leases {
				if l.After != nil && (l.Before == nil || l.Before.ElectedAt != l.After.ElectedAt || l.Before.Holder != l.After.Holder) {
					f.terms++
				}
			}
		}
	}
	graceful := gracefullyShutDown(o.history.Events)
	for _, w := range o.workers {
		if !w.ShutdownAt.IsZero() && !graceful[w.ID] {
			f.declaredDead++
		}
	}
	return f
}

// report prints the figures of the run, then every violation and problem
// with the rows involved.
func (r *run) report(w io.Writer, o outcome, f figures, total time.Duration) {
	fmt.Fprintf(w, "chaos run: seed %d, schema %s, %d workers × %d concurrent, chaos %v, quiescence %v, total %v\n",
		r.o.seed, r.schema, r.o.workers, r.o.concurrency, r.chaosTime.Round(time.Millisecond), r.settleTime.Round(time.Millisecond), total.Round(time.Millisecond))
	fmt.Fprintf(w, "jobs enqueued: %d (+%d enqueue calls failed with an unknown outcome) and %d runs of schedule %q; rows %d in %d chains\n",
		f.enqueued, f.enqueueErrors, f.scheduleRuns, beatSchedule.Name, f.rows, f.chains)
	fmt.Fprintf(w, "jobs processed: %d executions; %d completed, %d retried, %d failed for good (%d at max retries, %d by decision), %d rescued as lost, %d released at shutdown\n",
		f.executions, f.completed, f.retried, f.failedFinal, f.abandoned, f.failedByDecision, f.lost, f.released)
	answers := r.hook.answers()
	var parts []string
	for i, n := range answers {
		parts = append(parts, fmt.Sprintf("%s %d", answerNames[i], n))
	}
	fmt.Fprintf(w, "webhook answers: %s\n", strings.Join(parts, ", "))
	parts = parts[:0]
	for k, n := range r.counts {
		parts = append(parts, fmt.Sprintf("%s %d", faultNames[k], n))
	}
	fmt.Fprintf(w, "faults: %s; %d backends terminated", strings.Join(parts, ", "), r.terminated)
	if r.counts[faultRestartPG] > 0 {
		fmt.Fprintf(w, "; PostgreSQL restart took %v", r.pgRestart.Round(time.Millisecond))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "processes: %d starts of %d workers; %d worker registrations, %d declared dead; %d leader terms; %d fenced results\n",
		r.fleet.starts, r.o.workers, f.registrations, f.declaredDead, f.terms, f.fenced)
	r.reportFailover(w)
	if r.net != nil {
		r.reportNet(w, r.netFigures)
	}
	fmt.Fprintf(w, "history: %d events (%d cut log lines dropped)\n", f.events, o.cutLines)
	rows := indexRows(o.jobs)
	for _, v := range o.violations {
		fmt.Fprintf(w, "\nVIOLATION %v\n", v)
		printChains(w, rows, v.Jobs)
	}
	for _, p := range r.problems {
		fmt.Fprintf(w, "\nPROBLEM %s\n", p.what)
		if p.detail != "" {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(p.detail, "\n", "\n  "))
		}
	}
	fmt.Fprintf(w, "violations: %d (properties) + %d (processes and enqueues)\n", len(o.violations), len(r.problems))
}

// rowIndex finds rows by id and by the id of their next attempt.
type rowIndex struct {
	byID map[ulid.ULID]props.JobRow
	prev map[ulid.ULID]ulid.ULID
}

func indexRows(jobs []props.JobRow) rowIndex {
	ix := rowIndex{byID: map[ulid.ULID]props.JobRow{}, prev: map[ulid.ULID]ulid.ULID{}}
	for _, j := range jobs {
		ix.byID[j.ID] = j
		if !j.NextAttemptID.IsZero() {
			ix.prev[j.NextAttemptID] = j.ID
		}
	}
	return ix
}

// printChains prints, for each job involved in a violation, its whole
// attempt chain as the final rows have it.
func printChains(w io.Writer, ix rowIndex, involved []props.JobRow) {
	done := map[ulid.ULID]bool{}
	for _, j := range involved {
		first := j.ID
		for p, ok := ix.prev[first]; ok; p, ok = ix.prev[first] {
			first = p
		}
		if done[first] {
			continue
		}
		done[first] = true
		fmt.Fprintf(w, "  final rows of the chain of %s:\n", j.ID)
		for id := first; !id.IsZero(); {
			row, ok := ix.byID[id]
			if !ok {
				fmt.Fprintf(w, "    %s: no row\n", id)
				break
			}
			fmt.Fprintf(w, "    %+v\n", row)
			id = row.NextAttemptID
		}
	}
}
