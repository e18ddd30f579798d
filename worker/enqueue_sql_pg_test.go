package worker

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// A job enqueued by another language through the schema's SQL function
// (store/pg/migrations, enqueue_function) is run by a worker as its own
// jobs are: the handler decodes its payload and metadata, and the
// function's notification wakes the worker, which nothing else wakes.
func TestWorkerRunsAJobEnqueuedThroughSQL(t *testing.T) {
	st := pgtest.Open(t, nil)
	cfg := runnerConfig("emails")
	// Nothing but a notification wakes it within the test's minute.
	cfg.PollInterval, cfg.HeartbeatInterval, cfg.LeaderInterval = 10*time.Minute, 10*time.Minute, 10*time.Minute
	cfg.LeaseTTL, cfg.DeadWorkerThreshold = time.Hour, time.Hour
	type email struct {
		To string `json:"to"`
	}
	var got atomic.Pointer[Job[email]]
	startWorker(t, st, cfg, 1, func(w *Worker) {
		must(t, Handle(w, "emails", func(_ context.Context, j Job[email]) error { got.Store(&j); return nil }))
	})
	// A job of the Go client's, run first, leaves the worker asleep.
	first, err := Enqueue(t.Context(), NewClient(st, nil), email{To: "first"}, WithQueue("emails"))
	must(t, err)
	waitFor(t, "the first job's completion", func() bool { return len(listJobs(t, st, store.JobFilter{Status: store.Completed})) == 1 })
	got.Store(nil)

	var id pgtype.UUID
	must(t, st.Pool().QueryRow(t.Context(), "SELECT "+pgx.Identifier{st.Schema()}.Sanitize()+
		`.enqueue('emails', '{"to": "a@example.com"}', metadata => '{"tenant": "t1"}', priority => 2)`).Scan(&id))
	waitFor(t, "the job's run", func() bool { return got.Load() != nil })
	j := got.Load()
	if j.ID != ulid.ULID(id.Bytes) || j.Payload.To != "a@example.com" || j.Attempt != 0 || string(j.Metadata) != `{"tenant": "t1"}` {
		t.Errorf("the handler saw %+v; want job %s with its payload and metadata", j, ulid.ULID(id.Bytes))
	}
	waitFor(t, "the job's completion", func() bool {
		jobs := listJobs(t, st, store.JobFilter{Status: store.Completed})
		return len(jobs) == 2 && jobs[0].ID == first && jobs[1].ID == ulid.ULID(id.Bytes)
	})
}
