package worker

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// A job pass of the worker still in flight on the server when its graceful
// shutdown begins (a stop interrupted it on the client; PostgreSQL went on
// and committed it) leaves nothing running: the shutdown waits for the
// pass's lock on the worker row and then releases what it reserved. The
// pass is played by hand: a transaction that share-locks the worker's row,
// as every pass does first, and marks a job running under it, committed
// only once the shutdown waits for its lock.
func TestShutdownReleasesAPassThatCommitsDuringIt(t *testing.T) {
	st := pgtest.Open(t, nil)
	ctx := context.Background()
	r := startWorker(t, st, runnerConfig("q"), 1, func(w *Worker) {
		must(t, Handle(w, "q", func(context.Context, Job[struct{}]) error { return nil }))
	})
	waitFor(t, "the worker's registration", func() bool { return len(listWorkers(t, st)) == 1 })
	worker := listWorkers(t, st)[0].ID
	// A queue the worker does not serve, so that only the pass below runs it.
	id, err := Enqueue(ctx, NewClient(st, nil), struct{}{}, WithQueue("elsewhere"))
	must(t, err)

	jobs := pgx.Identifier{st.Schema(), "jobs"}.Sanitize()
	workers := pgx.Identifier{st.Schema(), "workers"}.Sanitize()
	pass, err := st.Pool().Begin(ctx)
	must(t, err)
	defer pass.Rollback(ctx)
	var passPID int32
	must(t, pass.QueryRow(ctx, "SELECT pg_backend_pid() FROM "+workers+" WHERE id = $1 FOR SHARE", uuid(worker)).Scan(&passPID))
	_, err = pass.Exec(ctx, "UPDATE "+jobs+" SET status = 'running', started_at = now(), started_by = $1 WHERE id = $2",
		uuid(worker), uuid(id))
	must(t, err)

	stopped := make(chan error, 1)
	go func() { stopped <- r.stop() }()
	waitFor(t, "the shutdown to wait for the pass's lock", func() bool {
		var waiting bool
		err := st.Pool().QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_stat_activity WHERE $1::integer = ANY (pg_blocking_pids(pid)))`,
			passPID).Scan(&waiting)
		must(t, err)
		return waiting
	})
	must(t, pass.Commit(ctx))
	must(t, <-stopped)

	for _, j := range listJobs(t, st, store.JobFilter{}) {
		if j.Status == store.Running {
			t.Errorf("job %s is still running under %s after its worker's graceful shutdown", j.ID, j.StartedBy)
		}
	}
}

func uuid(id ulid.ULID) pgtype.UUID { return pgtype.UUID{Bytes: id, Valid: true} }
