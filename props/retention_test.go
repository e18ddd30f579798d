package props

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// retentionPeriods sets the periods property 38 judges deletions by.
func retentionPeriods(b *builder) {
	b.params.JobRetention, b.params.WorkerRetention = time.Minute, 2*time.Minute
}

// completedAgo completes job 1, run by w1, then lets d pass and gives w1
// a fresh lease for its duties.
func completedAgo(b *builder, d time.Duration) {
	retentionPeriods(b)
	oneRunning(b)
	b.commit(w1, b.complete(1))
	b.after(d).reacquire(w1)
}

// dutyCommit records leader duties of w with one commit of changes, and
// returns that commit's index.
func dutyCommit(b *builder, w ulid.ULID, changes ...change) int {
	b.event(DutiesStarted, w, nil)
	at := atNext(b, func() { b.commit(w, changes...) })
	b.event(DutiesEnded, w, nil)
	return at
}

var retentionCases = []violationCase{
	{"job deleted within its retention", Retention, "within the retention of 1m0s", func(b *builder) int {
		completedAgo(b, 10*time.Second)
		return dutyCommit(b, w1, b.deleteJob(1))
	}},
	{"job deleted exactly its retention after it ended", Retention, "within the retention", func(b *builder) int {
		completedAgo(b, time.Minute)
		return dutyCommit(b, w1, b.deleteJob(1))
	}},
	{"more jobs deleted in one pass than its batch", Retention, "deleted 2 ended jobs in one pass, more than its batch of 1", func(b *builder) int {
		b.params.CleanupBatch = 1
		completedAgo(b, 10*time.Second)
		b.commit(none, b.enqueue(2))
		b.commit(w1, b.reserve(2, w1))
		b.commit(w1, b.complete(2))
		b.params.JobRetention = 0 // only the batch is judged
		return dutyCommit(b, w1, b.deleteJob(1), b.deleteJob(2))
	}},
	{"shut-down worker deleted within its retention", Retention, "worker " + w2.String() + " deleted by", func(b *builder) int {
		retentionPeriods(b)
		setup(b)
		b.commit(w2, b.shutdownWorker(w2))
		b.after(time.Minute).reacquire(w1)
		return dutyCommit(b, w1, b.deleteWorker(w2))
	}},
}

// TestRetentionAllowsWhatItShould: the leader deletes a job and a worker
// past their periods, and an operator deletes a job that just ended; no
// violation.
func TestRetentionAllowsWhatItShould(t *testing.T) {
	b := newBuilder()
	b.params.CleanupBatch = 1
	completedAgo(b, time.Minute+time.Microsecond)
	b.commit(w2, b.shutdownWorker(w2))
	b.commit(none, b.enqueue(2))
	b.commit(w1, b.reserve(2, w1))
	b.commit(w1, b.complete(2))
	b.commit(none, b.deleteJob(2))
	b.after(2*time.Minute + time.Second).reacquire(w1)
	b.duties(w1, b.deleteJob(1), b.deleteWorker(w2))
	for _, v := range mustCheck(t, b.history()) {
		t.Errorf("violation in a good history: %v", v)
	}
}
