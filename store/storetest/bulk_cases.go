package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// The batch calls of Client.Bulk (RetryJobs, CancelJobsFrom, DeleteJobs)
// against the single-row calls they stand for.

// errRollback ends a transaction a check only looks into.
var errRollback = errors.New("rolled back on purpose")

// outcome is one row's outcome as the checks compare it: "ok" or the
// refusal's text.
func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// rowsIn reads every job row and schedule as tx sees them, one per line.
func (h *harness) rowsIn(tx store.Tx) string {
	h.t.Helper()
	var b strings.Builder
	var after ulid.ULID
	for {
		page, err := tx.ListJobs(h.ctx, store.JobFilter{After: after, Limit: 500})
		if err != nil {
			h.t.Fatalf("list jobs after %s: %v", after, err)
		}
		for _, j := range page {
			fmt.Fprintln(&b, store.FormatJob(j))
		}
		if len(page) < 500 {
			break
		}
		after = page[len(page)-1].ID
	}
	scheds, err := tx.ListSchedules(h.ctx)
	if err != nil {
		h.t.Fatalf("list schedules: %v", err)
	}
	fmt.Fprintln(&b, scheds)
	return b.String()
}

// lookInto runs fn in a transaction that it rolls back, and returns what
// fn returned with the rows fn left.
func (h *harness) lookInto(fn func(tx store.Tx) []string) (out []string, rows string) {
	h.t.Helper()
	err := h.tx(func(tx store.Tx) error {
		out = fn(tx)
		rows = h.rowsIn(tx)
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		h.t.Fatalf("transaction failed: %v", err)
	}
	return out, rows
}

// wantAsSingles fails unless batch and singles, each run on the store as
// it is, give the same outcomes (text included) and leave the same rows,
// and unless each outcome is ok or a refusal wrapping the error wanted
// at its place (nil: ok). Neither commits.
func (h *harness) wantAsSingles(what string, batch func(tx store.Tx) ([]error, error), single func(tx store.Tx, i int) error, want []error) {
	h.t.Helper()
	n := len(want)
	var errs []error
	got, gotRows := h.lookInto(func(tx store.Tx) []string {
		var err error
		errs, err = batch(tx)
		if err != nil || len(errs) != n {
			h.t.Fatalf("%s: %d outcomes, error %v; want %d outcomes", what, len(errs), err, n)
		}
		out := make([]string, n)
		for i, e := range errs {
			out[i] = outcome(e)
		}
		return out
	})
	wantText, wantRows := h.lookInto(func(tx store.Tx) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = outcome(single(tx, i))
		}
		return out
	})
	if !slices.Equal(got, wantText) {
		h.t.Fatalf("%s: outcomes\n %s\nwant those of the single calls\n %s", what, strings.Join(got, "\n "), strings.Join(wantText, "\n "))
	}
	if gotRows != wantRows {
		h.t.Fatalf("%s left the rows\n%swant those the single calls leave\n%s", what, gotRows, wantRows)
	}
	for i, w := range want {
		if (w == nil) != (errs[i] == nil) || w != nil && !errors.Is(errs[i], w) {
			h.t.Fatalf("%s: outcome #%d is %s, want %v", what, i, got[i], w)
		}
	}
}

// bulkRows makes a store with a row of each kind a bulk action meets:
// completed, failed, cancelled, lost (w declared dead), one running under
// a live worker, available, scheduled, a failed first attempt retried
// into a failed second, and two failed rows of one unique key. It
// returns them in that order.
func (h *harness) bulkRows() []ulid.ULID {
	h.t.Helper()
	done, failed, cancelled, lost := h.terminalJobs()
	w := h.worker()
	run := h.running(w, "q")
	avail := h.insert("q", time.Time{})
	sched := h.insert("q", h.clock.Now().Add(time.Hour))
	first := h.failNext(w, "r")
	second := h.retry(first, 0).ID
	h.wantTook(h.reserve(w, 1, "r"), "the retry", second)
	h.fail(w, second, "again")
	var keyed []ulid.ULID
	for range 2 {
		j := h.keyed("k")
		j.Queue = "u"
		h.insertUnique(j)
		h.wantTook(h.reserve(w, 1, "u"), "the keyed job", j.ID)
		h.fail(w, j.ID, "failed on purpose")
		keyed = append(keyed, j.ID)
	}
	return append([]ulid.ULID{done, failed, cancelled, lost, run, avail, sched, first, second}, keyed...)
}

// statusesOf returns the status of each row of ids, in their order.
func (h *harness) statusesOf(ids []ulid.ULID) []store.Status {
	out := make([]store.Status, len(ids))
	for i, id := range ids {
		out[i] = h.job(id).Status
	}
	return out
}

var bulkCases = []testCase{
	{"RetryAsSingles", func(h *harness) {
		rows := h.bulkRows()
		// A repeat, an unknown id, a new id that exists and one given twice.
		ids := append(slices.Clone(rows), rows[1], h.newID())
		newIDs := make([]ulid.ULID, len(ids))
		for i := range newIDs {
			newIDs[i] = h.newID()
		}
		newIDs[3], newIDs[8] = rows[0], newIDs[1]
		c, nf := store.ErrConflict, store.ErrNotFound
		// failed ok; lost's new id exists; first already retried; second's
		// new id is failed's; the second keyed row meets the first's
		// retry, holding "k"; the repeat already has a next attempt.
		h.wantAsSingles("retry jobs",
			func(tx store.Tx) ([]error, error) { return tx.RetryJobs(h.ctx, ids, newIDs, 0) },
			func(tx store.Tx, i int) error { _, err := tx.ScheduleRetry(h.ctx, ids[i], newIDs[i], 0); return err },
			[]error{c, nil, c, c, c, c, c, c, c, nil, c, c, nf})
	}},
	{"RetryOfARowTheBatchMade", func(h *harness) {
		w := h.worker()
		failed := h.running(w, "q")
		h.fail(w, failed, "failed on purpose")
		next, after := h.newID(), h.newID()
		// The second id is the row the first retry makes: available, so
		// refused as such, not as unknown (a pg-vs-mem differential run).
		ids, newIDs := []ulid.ULID{failed, next}, []ulid.ULID{next, after}
		h.wantAsSingles("retry jobs",
			func(tx store.Tx) ([]error, error) { return tx.RetryJobs(h.ctx, ids, newIDs, 0) },
			func(tx store.Tx, i int) error { _, err := tx.ScheduleRetry(h.ctx, ids[i], newIDs[i], 0); return err },
			[]error{nil, store.ErrConflict})
	}},
	{"CancelAsSingles", func(h *harness) {
		rows := h.bulkRows()
		ids := append(slices.Clone(rows), rows[5], h.newID())
		from := append(h.statusesOf(rows), store.Available, "")
		from[6] = store.Available // the scheduled row, read as available: moved on
		from[4] = ""              // the running row, any status
		c, nf := store.ErrConflict, store.ErrNotFound
		h.wantAsSingles("cancel jobs",
			func(tx store.Tx) ([]error, error) { return tx.CancelJobsFrom(h.ctx, ids, from) },
			func(tx store.Tx, i int) error { _, err := tx.CancelJobFrom(h.ctx, ids[i], from[i]); return err },
			[]error{c, c, c, c, nil, nil, c, c, c, c, c, c, nf})
	}},
	{"DeleteAsSingles", func(h *harness) {
		rows := h.bulkRows()
		// The second attempt before the first, refused; again after it.
		ids := slices.Clone(rows)
		ids[7], ids[8] = rows[8], rows[7]
		ids = append(ids, rows[0], rows[8], h.newID())
		c, nf := store.ErrConflict, store.ErrNotFound
		h.wantAsSingles("delete jobs",
			func(tx store.Tx) ([]error, error) { return tx.DeleteJobs(h.ctx, ids, make([]store.Status, len(ids))) },
			func(tx store.Tx, i int) error { _, err := tx.DeleteJob(h.ctx, ids[i]); return err },
			[]error{nil, nil, nil, nil, c, c, c, c, nil, nil, nil, nf, nil, nf})
	}},
	{"DeleteRefusesARowThatMovedOn", func(h *harness) {
		// Client.Bulk deletes what its filter read: a row read running
		// that a leader marked lost since is refused and stays; one read
		// as it is goes; ids and statuses of different lengths fail.
		done, _, _, lost := h.terminalJobs() // lost was running until its worker was declared dead
		errs, err := h.deleteJobsFrom([]ulid.ULID{lost, done}, []store.Status{store.Running, store.Completed})
		if err != nil {
			h.t.Fatal(err)
		}
		h.wantErr(errs[0], store.ErrConflict, "delete of a row read running, now lost")
		if errs[1] != nil {
			h.t.Fatalf("delete of a completed row read completed: %v", errs[1])
		}
		if j := h.job(lost); j.Status != store.Lost {
			h.t.Fatalf("the refused row is %s, want it left lost", j.Status)
		}
		_, err = h.deleteJobsFrom([]ulid.ULID{lost}, nil)
		h.wantErr(err, store.ErrInvalid, "ids and statuses of different lengths")
	}},
	{"CancelSettlesOnceForAll", func(h *harness) {
		parent := h.insert("q", time.Time{})
		inBatch := h.insertChild(false, parent)
		left := h.insertChild(false, parent)
		ids := []ulid.ULID{parent, inBatch}
		errs, err := h.cancelJobs(ids, []store.Status{store.Available, store.Waiting})
		if err != nil || errs[0] != nil || errs[1] != nil {
			h.t.Fatalf("cancel of a parent and its waiting child: %v %v", errs, err)
		}
		// The child in the batch is the batch's own cancel, no reason;
		// the other is cancelled by its parent's.
		if j := h.job(inBatch); j.Status != store.Cancelled || j.FailedReason != "" {
			h.t.Fatalf("the child cancelled in the batch is %s, reason %q", j.Status, j.FailedReason)
		}
		h.wantCancelledBy(left, parent, store.Cancelled)
	}},
	{"RetryRepointsEveryParent", func(h *harness) {
		w := h.worker()
		a, b := h.running(w, "q"), h.running(w, "r")
		child := h.insertChild(false, a, b)
		h.fail(w, a, "failed on purpose")
		h.fail(w, b, "failed on purpose")
		na, nb := h.newID(), h.newID()
		errs, err := h.retryJobs([]ulid.ULID{a, b}, []ulid.ULID{na, nb})
		if err != nil || errs[0] != nil || errs[1] != nil {
			h.t.Fatalf("retry of both parents: %v %v", errs, err)
		}
		h.wantWaiting(child, store.Waiting, na, nb)
	}},
	{"MismatchedListsInvalid", func(h *harness) {
		id := h.insert("q", time.Time{})
		_, err := h.retryJobs([]ulid.ULID{id}, nil)
		h.wantErr(err, store.ErrInvalid, "retry jobs with no new ids")
		_, err = h.cancelJobs([]ulid.ULID{id}, nil)
		h.wantErr(err, store.ErrInvalid, "cancel jobs with no statuses")
		if j := h.job(id); j.Status != store.Available {
			h.t.Fatalf("a refused batch left the job %s", j.Status)
		}
	}},
}

// retryJobs and cancelJobs run the batch calls, committed.
func (h *harness) retryJobs(ids, newIDs []ulid.ULID) (errs []error, err error) {
	err = h.tx(func(tx store.Tx) (err error) { errs, err = tx.RetryJobs(h.ctx, ids, newIDs, 0); return err })
	return errs, err
}

func (h *harness) cancelJobs(ids []ulid.ULID, from []store.Status) (errs []error, err error) {
	err = h.tx(func(tx store.Tx) (err error) { errs, err = tx.CancelJobsFrom(h.ctx, ids, from); return err })
	return errs, err
}

// deleteJobsFrom runs DeleteJobs in a transaction of its own.
func (h *harness) deleteJobsFrom(ids []ulid.ULID, from []store.Status) (errs []error, err error) {
	h.t.Helper()
	err = h.tx(func(tx store.Tx) (err error) { errs, err = tx.DeleteJobs(h.ctx, ids, from); return err })
	return errs, err
}
