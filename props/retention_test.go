package props

import (
	"strings"
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
	freshLeader(b, d)
}

// freshLeader lets d pass; then w2 heartbeats, if live, and w1 takes a
// fresh lease, so that a pass of w1 owes no declaration of death.
func freshLeader(b *builder, d time.Duration) {
	b.after(d)
	if b.workers[w2].ShutdownAt.IsZero() {
		b.commit(w2, b.heartbeat(w2))
	}
	b.reacquire(w1)
}

// dutyCommit records leader duties of w with one commit of changes, and
// returns that commit's index.
func dutyCommit(b *builder, w ulid.ULID, changes ...change) int {
	return endedPass(b, w, 0, 0, changes...) - 1
}

// endedPass records leader duties of w with one commit of changes, ended
// with retention's batch limit and the rows it deleted (0, 0: no
// retention), and returns the index of their end, where properties 38
// and 39 judge what the pass left.
func endedPass(b *builder, w ulid.ULID, limit, deleted int, changes ...change) int {
	b.event(DutiesStarted, w, nil)
	b.commit(w, changes...)
	return atNext(b, func() {
		b.event(DutiesEnded, w, func(e *Event) { e.Limit, e.Deleted = limit, deleted })
	})
}

// failedRetriedAgo fails job 1 under w1, retries it as job 2, which fails
// for good too, then lets d pass and gives w1 a fresh lease.
func failedRetriedAgo(b *builder, d time.Duration) {
	retentionPeriods(b)
	oneRunning(b)
	b.commit(w1, b.fail(1, "boom"), b.retry(1, 2, 5*time.Second))
	b.after(5 * time.Second).reacquire(w1)
	b.commit(w1, b.promote(2))
	b.commit(w1, b.reserve(2, w1))
	b.commit(w1, b.fail(2, "boom"))
	freshLeader(b, d)
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
	{"retention pass left an old job it could delete", Retention, "deleted 0 of its batch of 2 and left job", func(b *builder) int {
		completedAgo(b, 2*time.Minute)
		return endedPass(b, w1, 2, 0)
	}},
	{"retention pass left an old shut-down worker", Retention, "left worker " + w2.String(), func(b *builder) int {
		retentionPeriods(b)
		setup(b)
		b.commit(w2, b.shutdownWorker(w2))
		b.after(3 * time.Minute).reacquire(w1)
		return endedPass(b, w1, 2, 0)
	}},
	{"retention pass left a retry whose attempt it deleted the pass before", Retention, "left job " + job(2).String(), func(b *builder) int {
		failedRetriedAgo(b, 2*time.Minute)
		endedPass(b, w1, 2, 1, b.deleteJob(1))
		return endedPass(b, w1, 2, 0)
	}},
	{"pass after a full retention batch applied none", Retention, "applied no retention after its last deleted a full batch", func(b *builder) int {
		completedAgo(b, 2*time.Minute)
		endedPass(b, w1, 1, 1, b.deleteJob(1))
		return endedPass(b, w1, 0, 0)
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

// TestRetentionPassMayLeaveWhatStoresKeep: a pass that applied retention
// leaves a retry whose earlier attempt it deleted (the store judged the
// rows as the pass found them), rows within their periods, and, after a
// full batch, anything; no violation.
func TestRetentionPassMayLeaveWhatStoresKeep(t *testing.T) {
	b := newBuilder()
	failedRetriedAgo(b, 2*time.Minute)
	b.commit(none, b.enqueue(3))
	b.commit(w1, b.reserve(3, w1))
	b.commit(w1, b.complete(3))
	endedPass(b, w1, 2, 1, b.deleteJob(1))
	endedPass(b, w1, 1, 1, b.deleteJob(2))
	freshLeader(b, 2*time.Minute)
	endedPass(b, w1, 1, 1, b.deleteJob(3))
	endedPass(b, w1, 1, 0)
	for _, v := range mustCheck(t, b.history()) {
		t.Errorf("violation in a good history: %v", v)
	}
}

// TestRetentionPassInCommitOrder: in a history in commit order, a row an
// ended pass left is owed by the next pass, which its snapshot may have
// been the first to see.
func TestRetentionPassInCommitOrder(t *testing.T) {
	b := newBuilder()
	b.params.CommitOrder = true
	completedAgo(b, 2*time.Minute)
	endedPass(b, w1, 2, 0)
	if v := mustCheck(t, b.history()); len(v) > 0 {
		t.Fatalf("the first pass that left the row was judged in commit order: %v", v)
	}
	endedPass(b, w1, 2, 0)
	v := mustCheck(t, b.history())
	if len(v) != 1 || v[0].Property != Retention || !strings.Contains(v[0].Message, "left job "+job(1).String()) {
		t.Fatalf("the second pass that left the row: want one retention violation naming it, got %v", v)
	}
}
