package props

import (
	"testing"
	"time"
)

// bulk marks a commit as a batch of the bulk action req.
func bulk(req BulkRequest) change { return func(e *Event) { e.Bulk = &req } }

// bulkCancel cancels job n as an operator does.
func (b *builder) bulkCancel(n int) change {
	return b.setJob(job(n), func(r *JobRow) { r.Status, r.CancelledAt = Cancelled, b.now })
}

// twoQueues enqueues job 1 on queue q and job 2 on queue r, both
// available, payloads {"n":1} and {"n":2}, a minute before now.
func twoQueues(b *builder) {
	setup(b)
	b.commit(none, b.enqueue(1), b.insertJob(JobRow{ID: job(2), Queue: "r", Status: Available, CreatedAt: b.now, ScheduledAt: b.now}))
	b.commit(none, b.setJob(job(1), func(r *JobRow) { r.Payload = `{"n":1}` }), b.setJob(job(2), func(r *JobRow) { r.Payload = `{"n":2}` }))
	b.after(time.Minute)
}

var bulkCases = []violationCase{
	{"cancel of a job of another queue", BulkActions, `its queue is "r", not "q"`, func(b *builder) int {
		twoQueues(b)
		return atNext(b, func() {
			b.commit(none, bulk(BulkRequest{Action: "cancel", Queue: "q", BatchSize: 5}), b.bulkCancel(1), b.bulkCancel(2))
		})
	}},
	{"cancel of a job of another status", BulkActions, "its status is running, not available", func(b *builder) int {
		twoQueues(b)
		b.commit(w1, b.reserve(2, w1))
		return atNext(b, func() {
			b.commit(none, bulk(BulkRequest{Action: "cancel", Status: Available, BatchSize: 5}), b.bulkCancel(1), b.bulkCancel(2))
		})
	}},
	{"cancel of a job too young", BulkActions, "not more than 2m0s before", func(b *builder) int {
		twoQueues(b)
		return atNext(b, func() {
			b.commit(none, bulk(BulkRequest{Action: "cancel", OlderThan: 2 * time.Minute, BatchSize: 5}), b.bulkCancel(1))
		})
	}},
	{"cancel of a job without the text", BulkActions, `lacks "1"`, func(b *builder) int {
		twoQueues(b)
		return atNext(b, func() {
			b.commit(none, bulk(BulkRequest{Action: "cancel", Text: "1", BatchSize: 5}), b.bulkCancel(1), b.bulkCancel(2))
		})
	}},
	{"batch over its size", BulkActions, "acted on 2 jobs, more than its batch size 1", func(b *builder) int {
		twoQueues(b)
		return atNext(b, func() {
			b.commit(none, bulk(BulkRequest{Action: "cancel", BatchSize: 1}), b.bulkCancel(1), b.bulkCancel(2))
		})
	}},
	{"dry run that changed a row", BulkActions, "a dry run of bulk cancel changed 1 job rows", func(b *builder) int {
		twoQueues(b)
		return atNext(b, func() {
			b.commit(none, bulk(BulkRequest{Action: "cancel", DryRun: true, BatchSize: 5}), b.bulkCancel(1))
		})
	}},
	{"retry of a failed job of another queue", BulkActions, `bulk retry acted on job 01000000000000000000000002, which its filter did not select: its queue is "r"`, func(b *builder) int {
		twoQueues(b)
		b.commit(w1, b.reserve(2, w1))
		b.commit(w1, b.fail(2, "failed"))
		return atNext(b, func() {
			b.commit(none, bulk(BulkRequest{Action: "retry", Queue: "q", BatchSize: 5}), b.retry(2, 3, 5*time.Second))
		})
	}},
	{"delete that changed a row it kept", BulkActions, "changed job", func(b *builder) int {
		twoQueues(b)
		return atNext(b, func() {
			b.commit(none, bulk(BulkRequest{Action: "delete", BatchSize: 5}), b.bulkCancel(1))
		})
	}},
}

// TestBulkWithinItsFilterKeepsThePromise: batches that act only on what
// their filter selects, within their size, break nothing.
func TestBulkWithinItsFilterKeepsThePromise(t *testing.T) {
	b := newBuilder()
	twoQueues(b)
	req := BulkRequest{Action: "cancel", Queue: "q", Status: Available, OlderThan: time.Second, Text: "1", BatchSize: 1}
	b.commit(none, bulk(req), b.bulkCancel(1))
	b.commit(w1, b.reserve(2, w1), b.complete(2))
	b.commit(none, bulk(BulkRequest{Action: "delete", Queue: "q", BatchSize: 1}), b.deleteJob(1))
	for _, v := range mustCheck(t, b.history()) {
		t.Errorf("unexpected violation: %v", v)
	}
}
