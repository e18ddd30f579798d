package worker

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// bulkJobs is a store's jobs for the bulk tests: on queue q three failed
// jobs created two hours before the rest, one running job and two
// available ones; on queue r one failed job.
type bulkJobs struct {
	st               store.Store
	c                *Client
	failed           []ulid.ULID // on q, oldest
	running, failedR ulid.ULID
	available        []ulid.ULID
	clock            *time.Time
}

// newBulkJobs fills st (whose clock reads *clock) with bulkJobs' rows.
func newBulkJobs(t *testing.T, st store.Store, clock *time.Time) *bulkJobs {
	t.Helper()
	b := &bulkJobs{st: st, c: NewClient(st, clockrng.NewRand(1)), clock: clock}
	w := b.c.newID(*clock)
	must(t, st.InTx(t.Context(), func(tx store.Tx) error { return tx.RegisterWorker(t.Context(), w) }))
	for i := range 3 {
		b.failed = append(b.failed, b.failNext(t, w, "q", `{"n":`+string(rune('0'+i))+`, "tag": "Alpha"}`))
	}
	*clock = clock.Add(2 * time.Hour)
	b.failedR = b.failNext(t, w, "r", `{"tag": "alpha"}`)
	b.running = b.insert(t, "q", `{"tag": "busy"}`)
	b.reserve(t, w, "q")
	b.available = []ulid.ULID{b.insert(t, "q", `{}`), b.insert(t, "q", `{}`)}
	return b
}

// insert inserts one available job and returns its id.
func (b *bulkJobs) insert(t *testing.T, queue, payload string) ulid.ULID {
	t.Helper()
	*b.clock = b.clock.Add(time.Millisecond)
	id := b.c.newID(*b.clock)
	must(t, b.st.InTx(t.Context(), func(tx store.Tx) error {
		_, err := tx.InsertJobs(t.Context(), []store.NewJob{{ID: id, Queue: queue, Payload: json.RawMessage(payload)}})
		return err
	}))
	return id
}

// reserve has worker w take the one available job of queue.
func (b *bulkJobs) reserve(t *testing.T, w ulid.ULID, queue string) {
	t.Helper()
	must(t, b.st.InTx(t.Context(), func(tx store.Tx) error {
		_, err := tx.Reserve(t.Context(), w, []string{queue}, 1)
		return err
	}))
}

// failNext inserts a job, has w run it and fail it for good.
func (b *bulkJobs) failNext(t *testing.T, w ulid.ULID, queue, payload string) ulid.ULID {
	t.Helper()
	id := b.insert(t, queue, payload)
	b.reserve(t, w, queue)
	must(t, b.st.InTx(t.Context(), func(tx store.Tx) error { return tx.FailJob(t.Context(), w, id, "boom") }))
	return id
}

// all returns every row.
func (b *bulkJobs) all(t *testing.T) []store.Job {
	return listJobs(t, b.st, store.JobFilter{Limit: 1000})
}

// bulk runs r and fails the test on an error.
func (b *bulkJobs) bulk(t *testing.T, r BulkRequest) BulkResult {
	t.Helper()
	res, err := b.c.Bulk(t.Context(), r)
	if err != nil {
		t.Fatalf("Bulk(%+v): %v", r, err)
	}
	return res
}

func newMemBulkJobs(t *testing.T) *bulkJobs {
	clock := epoch
	return newBulkJobs(t, mem.New(func() time.Time { return clock }), &clock)
}

func TestBulkDryRunCountsAndChangesNothing(t *testing.T) {
	b := newMemBulkJobs(t)
	before := b.all(t)
	res := b.bulk(t, BulkRequest{Action: BulkDelete, Filter: BulkFilter{Queue: "q"}, DryRun: true})
	if res.Matched != 6 || res.Done != 0 || res.Refused != 0 {
		t.Fatalf("dry run of delete on q: %+v, want 6 matched, nothing done", res)
	}
	if after := b.all(t); !reflect.DeepEqual(after, before) {
		t.Fatalf("a dry run changed the jobs:\n%v\nwant\n%v", after, before)
	}
}

func TestBulkRetryRetriesLastFailedAttemptsOnce(t *testing.T) {
	b := newMemBulkJobs(t)
	f := BulkFilter{Queue: "q", Status: store.Failed}
	res := b.bulk(t, BulkRequest{Action: BulkRetry, Filter: f})
	if res.Matched != 3 || res.Done != 3 || res.Refused != 0 {
		t.Fatalf("retry of failed jobs on q: %+v, want 3 done", res)
	}
	for _, id := range b.failed {
		if next := b.job(t, id).NextAttemptID; next == (ulid.ULID{}) || b.job(t, next).Status != store.Available {
			t.Errorf("job %s has no available next attempt after the bulk retry", id)
		}
	}
	if again := b.bulk(t, BulkRequest{Action: BulkRetry, Filter: f}); again.Matched != 0 {
		t.Fatalf("second retry matched %d jobs, want none: the first retried them", again.Matched)
	}
	if b.job(t, b.failedR).NextAttemptID != (ulid.ULID{}) {
		t.Fatal("the failed job of queue r was retried by a retry of queue q")
	}
}

func TestBulkDeleteNeverDeletesARunningJob(t *testing.T) {
	b := newMemBulkJobs(t)
	res := b.bulk(t, BulkRequest{Action: BulkDelete, Filter: BulkFilter{Queue: "q"}, BatchSize: 2})
	if res.Matched != 6 || res.Done != 3 || res.Refused != 3 || len(res.Refusals) != 3 {
		t.Fatalf("delete on q: %+v, want 3 failed deleted, 1 running and 2 available refused", res)
	}
	if !strings.Contains(res.Refusals[0], "it is running; cancel it first") {
		t.Errorf("first refusal %q does not say the job runs", res.Refusals[0])
	}
	if j := b.job(t, b.running); j.Status != store.Running {
		t.Fatalf("running job after the bulk delete: %s", j.Status)
	}
	if res.Batches != 4 {
		t.Errorf("batches of 2 over 7 rows: %d, want 4", res.Batches)
	}
}

func TestBulkFiltersByAgeOnTheStoreClockAndText(t *testing.T) {
	b := newMemBulkJobs(t)
	res := b.bulk(t, BulkRequest{Action: BulkCancel, Filter: BulkFilter{OlderThan: time.Hour}, DryRun: true})
	if res.Matched != 3 {
		t.Fatalf("jobs older than an hour: %d, want the 3 failed first", res.Matched)
	}
	res = b.bulk(t, BulkRequest{Action: BulkCancel, Filter: BulkFilter{Text: `"tag": "busy"`}})
	if res.Matched != 1 || res.Done != 1 || b.job(t, b.running).Status != store.Cancelled {
		t.Fatalf("cancel of the busy job: %+v, job %s", res, b.job(t, b.running).Status)
	}
	res = b.bulk(t, BulkRequest{Action: BulkCancel, Filter: BulkFilter{Text: "alpha"}})
	if res.Matched != 1 || res.Done != 0 || res.Refused != 1 {
		t.Fatalf("cancel of the one failed job whose text is alpha: %+v, want it refused", res)
	}
}

func TestBulkRejectsBadInputNamingIt(t *testing.T) {
	b := newMemBulkJobs(t)
	for _, c := range []struct {
		r    BulkRequest
		want string
	}{
		{BulkRequest{Filter: BulkFilter{Queue: "q"}}, `action ""`},
		{BulkRequest{Action: "purge", Filter: BulkFilter{Queue: "q"}}, `action "purge"`},
		{BulkRequest{Action: BulkRetry, Filter: BulkFilter{Status: "dead"}}, `status "dead"`},
		{BulkRequest{Action: BulkRetry, Filter: BulkFilter{OlderThan: -time.Hour}}, "age -1h0m0s"},
		{BulkRequest{Action: BulkRetry, Filter: BulkFilter{Queue: "q"}, BatchSize: MaxBulkBatch + 1}, "batch size"},
		{BulkRequest{Action: BulkDelete}, "empty filter"},
	} {
		_, err := b.c.Bulk(t.Context(), c.r)
		if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Bulk(%+v): %v, want ErrInvalid naming %s", c.r, err, c.want)
		}
	}
	if res := b.bulk(t, BulkRequest{Action: BulkRetry, Filter: BulkFilter{All: true}, DryRun: true}); res.Matched != 7 {
		t.Errorf("dry-run retry of all: %d matched, want every job, a last attempt each", res.Matched)
	}
}

func TestBulkOnPostgres(t *testing.T) {
	clock := epoch
	b := newBulkJobs(t, pgtest.Open(t, func() time.Time { return clock }), &clock)
	res := b.bulk(t, BulkRequest{Action: BulkDelete, Filter: BulkFilter{Queue: "q", Text: "Alpha", OlderThan: time.Hour}, BatchSize: 3})
	if res.Matched != 3 || res.Done != 3 {
		t.Fatalf("delete of the old Alpha jobs on q: %+v, want 3 done", res)
	}
	res = b.bulk(t, BulkRequest{Action: BulkDelete, Filter: BulkFilter{Status: store.Running}})
	if res.Refused != 1 || b.job(t, b.running).Status != store.Running {
		t.Fatalf("delete of running jobs: %+v, want the running job refused and kept", res)
	}
}

// job reads one row.
func (b *bulkJobs) job(t *testing.T, id ulid.ULID) store.Job {
	t.Helper()
	var j store.Job
	must(t, b.st.InTx(t.Context(), func(tx store.Tx) (err error) { j, err = tx.GetJob(t.Context(), id); return err }))
	return j
}

// countingStore counts, by name, the store calls that act on jobs.
type countingStore struct {
	store.Store
	calls map[string]int
}

func (s *countingStore) InTx(ctx context.Context, fn func(store.Tx) error) error {
	return s.Store.InTx(ctx, func(tx store.Tx) error { return fn(countingTx{tx, s.calls}) })
}

type countingTx struct {
	store.Tx
	calls map[string]int
}

func (t countingTx) ScheduleRetry(ctx context.Context, id, newID ulid.ULID, d time.Duration) (store.Job, error) {
	t.calls["ScheduleRetry"]++
	return t.Tx.ScheduleRetry(ctx, id, newID, d)
}

func (t countingTx) RetryJobs(ctx context.Context, ids, newIDs []ulid.ULID, d time.Duration) ([]error, error) {
	t.calls["RetryJobs"]++
	return t.Tx.RetryJobs(ctx, ids, newIDs, d)
}

func (t countingTx) CancelJobFrom(ctx context.Context, id ulid.ULID, from store.Status) (store.Job, error) {
	t.calls["CancelJobFrom"]++
	return t.Tx.CancelJobFrom(ctx, id, from)
}

func (t countingTx) CancelJobsFrom(ctx context.Context, ids []ulid.ULID, from []store.Status) ([]error, error) {
	t.calls["CancelJobsFrom"]++
	return t.Tx.CancelJobsFrom(ctx, ids, from)
}

func (t countingTx) DeleteJob(ctx context.Context, id ulid.ULID) (store.Job, error) {
	t.calls["DeleteJob"]++
	return t.Tx.DeleteJob(ctx, id)
}

func (t countingTx) DeleteJobs(ctx context.Context, ids []ulid.ULID, from []store.Status) ([]error, error) {
	t.calls["DeleteJobs"]++
	return t.Tx.DeleteJobs(ctx, ids, from)
}

// TestBulkActsWithOneStoreCallPerBatch: batches of 3 over the 7 rows
// (pages [failed x3], [failed on r, running, available], [available])
// make one batch call each where a row of q is left to act on (a retry's
// running and available rows are refused before the store), and no
// single-row call.
func TestBulkActsWithOneStoreCallPerBatch(t *testing.T) {
	for _, c := range []struct {
		action BulkAction
		want   map[string]int
	}{
		{BulkRetry, map[string]int{"RetryJobs": 1}},
		{BulkCancel, map[string]int{"CancelJobsFrom": 3}},
		{BulkDelete, map[string]int{"DeleteJobs": 3}},
	} {
		b := newMemBulkJobs(t)
		*b.clock = b.clock.Add(time.Second) // the retries' ids sort after the rows read
		calls := map[string]int{}
		client := NewClient(&countingStore{Store: b.st, calls: calls}, clockrng.NewRand(2))
		res, err := client.Bulk(t.Context(), BulkRequest{Action: c.action, Filter: BulkFilter{Queue: "q"}, BatchSize: 3})
		if err != nil {
			t.Fatal(err)
		}
		if res.Batches != 3 || res.Matched != 6 || !reflect.DeepEqual(calls, c.want) {
			t.Errorf("bulk %s: %+v, store calls %v; want 3 batches, 6 matched, calls %v", c.action, res, calls, c.want)
		}
	}
}
