package props

import (
	"testing"
	"time"
)

// enqueueChild inserts job n waiting for the given jobs.
func (b *builder) enqueueChild(n int, anyway bool, parents ...int) change {
	return b.insertJob(JobRow{ID: job(n), Queue: "q", Status: Awaiting, CreatedAt: b.now, ScheduledAt: b.now,
		Parents: parentList(parents...), RunAnyway: anyway})
}

// parentList is JobRow.Parents for jobs ns.
func parentList(ns ...int) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ","
		}
		s += job(n).String()
	}
	return s
}

// waitFor sets the parents job n still waits for.
func (b *builder) waitFor(n int, parents ...int) change {
	return b.setJob(job(n), func(r *JobRow) { r.Parents = parentList(parents...) })
}

// release makes waiting job n available.
func (b *builder) release(n int) change {
	return b.setJob(job(n), func(r *JobRow) { r.Status, r.Parents = Available, "" })
}

// cancelFor cancels waiting job n for parent p, which ended as status.
func (b *builder) cancelFor(n, p int, status Status) change {
	return b.setJob(job(n), func(r *JobRow) {
		r.Status, r.CancelledAt, r.Parents, r.FailedReason = Cancelled, b.now, "", "parent "+job(p).String()+" "+string(status)
	})
}

// twoParents runs jobs 1 and 2 under w1 with job 3 waiting for both.
func twoParents(b *builder) {
	b.params.SerialTransactions = true
	setup(b)
	b.commit(none, b.enqueue(1), b.enqueue(2), b.enqueueChild(3, false, 1, 2))
	b.commit(w1, b.reserve(1, w1), b.reserve(2, w1))
}

var dependencyCases = []violationCase{
	{"released while a parent runs", DependencyOrder, "while its parent 01000000000000000000000002 is running", func(b *builder) int {
		twoParents(b)
		return atNext(b, func() { b.commit(w1, b.complete(1), b.release(3)) })
	}},
	{"released and started at once while a parent runs", DependencyOrder, "(now running)", func(b *builder) int {
		twoParents(b)
		return atNext(b, func() {
			b.commit(w1, b.complete(1), b.setJob(job(3), func(r *JobRow) { r.Status, r.Parents, r.StartedAt, r.StartedBy = Running, "", b.now, w1 }))
		})
	}},
	{"cancelled for a parent that completed", DependencyOrder, "which is completed", func(b *builder) int {
		twoParents(b)
		return atNext(b, func() { b.commit(w1, b.complete(1), b.cancelFor(3, 1, Completed)) })
	}},
	{"left waiting for a failed parent by a leader pass", DependenciesSettled, "still waiting for 01000000000000000000000001, which is failed", func(b *builder) int {
		twoParents(b)
		b.commit(w1, b.fail(1, "boom"))
		b.event(DutiesStarted, w1, nil)
		return atNext(b, func() { b.event(DutiesEnded, w1, nil) })
	}},
	{"left waiting for a failed parent by two leader passes in commit order", DependenciesSettled, "which is failed", func(b *builder) int {
		twoParents(b)
		b.params.SerialTransactions, b.params.CommitOrder = false, true
		b.commit(w1, b.fail(1, "boom"))
		b.duties(w1)
		b.event(DutiesStarted, w1, nil)
		return atNext(b, func() { b.event(DutiesEnded, w1, nil) })
	}},
	{"a waited-for row deleted", DependenciesSettled, "deleted while job 01000000000000000000000003 waits", func(b *builder) int {
		twoParents(b)
		b.commit(w1, b.fail(1, "boom"))
		b.after(time.Hour)
		b.reacquire(w1)
		return atNext(b, func() { b.duties(w1, b.deleteJob(1)) }) + 1
	}},
}

// TestDependenciesAllowWhatTheyShould: a child released once its parents
// completed, cancelled for a failed parent by a leader pass, or running
// anyway after one, is a clean history.
func TestDependenciesAllowWhatTheyShould(t *testing.T) {
	for name, build := range map[string]func(b *builder){
		"released when the last parent completes, then run": func(b *builder) {
			twoParents(b)
			b.commit(w1, b.complete(1), b.waitFor(3, 2))
			b.duties(w1)
			b.commit(w1, b.complete(2), b.release(3))
			b.commit(w2, b.reserve(3, w2))
		},
		"a retried parent takes its place": func(b *builder) {
			twoParents(b)
			b.commit(w1, b.fail(1, "boom"), b.retry(1, 4, 0), b.waitFor(3, 4, 2))
			b.duties(w1, b.promote(4))
			b.commit(w1, b.complete(2), b.waitFor(3, 4))
		},
		"cancelled by the leader for a failed parent": func(b *builder) {
			twoParents(b)
			b.commit(w1, b.fail(1, "boom"))
			b.duties(w1, b.cancelFor(3, 1, Failed))
			b.after(time.Hour)
			b.reacquire(w1)
			b.commit(w2, b.heartbeat(w2))
			b.duties(w1, b.deleteJob(1))
		},
		"settled by the second leader pass in commit order": func(b *builder) {
			twoParents(b)
			b.params.SerialTransactions, b.params.CommitOrder = false, true
			b.commit(w1, b.fail(1, "boom"))
			b.duties(w1)
			b.duties(w1, b.cancelFor(3, 1, Failed))
			b.duties(w1)
		},
		"running anyway": func(b *builder) {
			b.params.SerialTransactions = true
			setup(b)
			b.commit(none, b.enqueue(1), b.enqueueChild(2, true, 1))
			b.commit(w1, b.reserve(1, w1))
			b.commit(w1, b.fail(1, "boom"))
			b.duties(w1, b.release(2))
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := newBuilder()
			build(b)
			for _, v := range mustCheck(t, b.history()) {
				if v.Property >= Priorities && v.Property != NoLostJobs {
					t.Errorf("violation in a good history: %v", v)
				}
			}
		})
	}
}
