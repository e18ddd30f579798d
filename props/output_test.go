package props

import "testing"

// succeedWith runs job 1 on w1 to a Succeed whose handler recorded out.
func succeedWith(b *builder, out string) {
	setup(b)
	b.commit(none, b.enqueue(1))
	b.commit(w1, b.reserve(1, w1))
	b.start(1, w1)
	b.event(ExecEnded, w1, func(e *Event) { e.Job, e.Decision, e.Output = job(1), Succeed, out })
}

func (b *builder) completeWith(n int, out string) change {
	return b.setJob(job(n), func(r *JobRow) { r.Status, r.CompletedAt, r.Output = Completed, b.now, out })
}

var outputCases = []violationCase{
	{"completed without the recorded output", RecordedOutput, `its handler recorded "{\"n\":1}"`, func(b *builder) int {
		succeedWith(b, `{"n":1}`)
		return atNext(b, func() { b.commit(w1, b.complete(1)) })
	}},
	{"output changed after completion", RecordedOutput, "output changed", func(b *builder) int {
		succeedWith(b, `1`)
		b.commit(w1, b.completeWith(1, `1`))
		return atNext(b, func() { b.commit(w1, b.setJob(job(1), func(r *JobRow) { r.Output = `2` })) })
	}},
	{"inserted with an output", RecordedOutput, "inserted with output", func(b *builder) int {
		setup(b)
		return atNext(b, func() {
			b.commit(none, b.insertJob(JobRow{ID: job(1), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now, Output: `1`}))
		})
	}},
}

func TestRecordedOutputKeptIsNoViolation(t *testing.T) {
	b := newBuilder()
	succeedWith(b, `{"n":1}`)
	b.commit(w1, b.completeWith(1, `{"n":1}`))
	if vs := mustCheck(t, b.history()); len(vs) != 0 {
		t.Fatalf("violations:\n%v", vs)
	}
}
