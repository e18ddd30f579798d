package props

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

func (b *builder) cancelRow(n int) change {
	return b.setJob(job(n), func(r *JobRow) { r.Status, r.CancelledAt = Cancelled, b.now })
}

// checked records a cancel check by w asking about jobs ns.
func (b *builder) checked(w ulid.ULID, ns ...int) {
	b.event(CancelChecked, w, func(e *Event) {
		for _, n := range ns {
			e.Asked = append(e.Asked, job(n))
		}
	})
}

func (b *builder) stop(n int, w ulid.ULID) {
	b.event(ExecCancelled, w, func(e *Event) { e.Job = job(n) })
}

// runningThenCancelled: worker 1 runs jobs 1 and 2, and an operator
// cancels job 1 while it runs, in a history of serial transactions.
func runningThenCancelled(b *builder) {
	b.params.SerialTransactions = true
	setup(b)
	b.commit(none, b.enqueue(1), b.enqueue(2))
	b.commit(w1, b.reserve(1, w1), b.reserve(2, w1))
	b.start(1, w1)
	b.start(2, w1)
	b.after(time.Second)
	b.commit(none, b.cancelRow(1))
	b.after(100 * time.Millisecond)
}

var cancelCases = []violationCase{
	{"a check found the cancel and the handler went on", JobCancel, "did not cancel its handler's context", func(b *builder) int {
		runningThenCancelled(b)
		b.checked(w1, 1, 2)
		b.after(time.Millisecond)
		return atNext(b, func() { b.commit(w1, b.heartbeat(w1)) })
	}},
	{"a check that left out a cancelled job it runs", JobCancel, "without asking about job", func(b *builder) int {
		runningThenCancelled(b)
		return atNext(b, func() { b.checked(w1, 2) })
	}},
	{"a handler stopped though its job was not cancelled", JobCancel, "whose row is running", func(b *builder) int {
		runningThenCancelled(b)
		return atNext(b, func() { b.stop(2, w1) })
	}},
	{"a cancelled job's result recorded", JobCancel, "from cancelled to completed", func(b *builder) int {
		runningThenCancelled(b)
		b.end(1, w1, Succeed)
		return atNext(b, func() { b.commit(w1, b.complete(1)) })
	}},
}

// TestJobCancelAllowsWhatItShould: handlers stopped in time, by the check
// or the notification, and the cases the property exempts.
func TestJobCancelAllowsWhatItShould(t *testing.T) {
	for name, build := range map[string]func(b *builder){
		"stopped at the check": func(b *builder) {
			runningThenCancelled(b)
			b.checked(w1, 1, 2)
			b.stop(1, w1)
			b.after(time.Millisecond)
			b.checked(w1, 2)
			b.end(1, w1, Retry)
			b.event(ResultFenced, w1, func(e *Event) { e.Job = job(1) })
		},
		"stopped by the notification before any check": func(b *builder) {
			runningThenCancelled(b)
			b.stop(1, w1)
			b.after(time.Millisecond)
			b.checked(w1, 2)
		},
		"the handler returned at the check": func(b *builder) {
			runningThenCancelled(b)
			b.checked(w1, 1, 2)
			b.end(1, w1, Succeed)
			b.after(time.Millisecond)
			b.commit(w1, b.heartbeat(w1))
		},
		"declared dead in the tick that checked": func(b *builder) {
			runningThenCancelled(b)
			b.checked(w1, 1, 2)
			b.commit(none, b.shutdownWorker(w1)) // by a leader, in truth
			b.event(DeclaredDead, w1, nil)
			b.after(time.Second) // registering again waits on the store
			b.commit(w3, b.register(w3))
		},
		"not judged when transactions overlap": func(b *builder) {
			runningThenCancelled(b)
			b.params.SerialTransactions = false
			b.checked(w1, 2)
			b.after(time.Millisecond)
			b.commit(w1, b.heartbeat(w1))
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := newBuilder()
			b.procs[w3] = b.procName(w1) // w1's process registers again as w3
			build(b)
			for _, v := range mustCheck(t, b.history()) {
				if v.Property != NoLostJobs { // the history ends with a job running
					t.Errorf("violation in a good history: %v", v)
				}
			}
		})
	}
}
