package console

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// webhookSecret is a credential inside a failure reason and a payload; no
// page may show it.
const webhookSecret = "s3cr3t-hook-pass"

// fixture is a schema with real rows: two workers (one the leader), jobs
// on two queues in every status, and a failed webhook job whose reason
// quotes its URL with a password.
type fixture struct {
	st      *pg.Store
	worker  ulid.ULID
	failed  ulid.ULID // the failed webhook job, not yet retried
	retried ulid.ULID // a failed job retried as retry
	retry   ulid.ULID
	running ulid.ULID
	output  ulid.ULID // a completed job whose handler recorded an output with a token in it
	jobs    int
	// completed and failedN count the results of the fixture, all within
	// the last ten minutes.
	completed, failedN int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	// The store's clock is the real one but for the history of results
	// spread over the last minutes, written with the clock set back.
	var back time.Duration
	f := &fixture{st: pgtest.Open(t, func() time.Time { return time.Now().Add(-back) })}
	rnd := clockrng.NewRand(7)
	f.history(t, &back, rnd)
	err := f.st.InTx(ctx, func(tx store.Tx) error {
		now, err := tx.Now(ctx)
		if err != nil {
			return err
		}
		newID := func() ulid.ULID { return clockrng.NewULID(now, rnd) }
		f.worker = newID()
		idle := newID()
		for _, w := range []ulid.ULID{f.worker, idle} {
			if err := tx.RegisterWorker(ctx, w); err != nil {
				return err
			}
		}
		if _, err := tx.TryAcquireLease(ctx, f.worker, 30e9); err != nil {
			return err
		}
		var jobs []store.NewJob
		for i := range 12 {
			payload := fmt.Sprintf(`{"n":%d}`, i)
			queue := "email"
			if i%3 == 0 {
				queue = "webhook"
				payload = fmt.Sprintf(`{"url":"https://hooks:%s@hooks.example.com/in?sig=%s","n":%d}`, webhookSecret, webhookSecret, i)
			}
			jobs = append(jobs, store.NewJob{ID: newID(), Queue: queue, Payload: json.RawMessage(payload)})
		}
		jobs = append(jobs, store.NewJob{ID: newID(), Queue: "email", Payload: json.RawMessage(`{"later":true}`), ScheduledAt: now.Add(3600e9)})
		if _, err := tx.InsertJobs(ctx, jobs); err != nil {
			return err
		}
		f.jobs += len(jobs)
		hooks, err := tx.Reserve(ctx, f.worker, []string{"webhook"}, 4)
		if err != nil {
			return err
		}
		mails, err := tx.Reserve(ctx, f.worker, []string{"email"}, 5)
		if err != nil {
			return err
		}
		// webhook: 0 failed, its reason quoting the URL; 1 failed and
		// retried; 2, 3 running. email: 0, 1 completed; 2 cancelled; 3, 4
		// running; 3 more available and 1 scheduled.
		f.failed, f.retried, f.running = hooks[0].ID, hooks[1].ID, mails[3].ID
		reason := fmt.Sprintf(`Post "https://hooks:%s@hooks.example.com/in?sig=%s": 503 Service Unavailable`, webhookSecret, webhookSecret)
		for _, id := range []ulid.ULID{f.failed, f.retried} {
			if err := tx.FailJob(ctx, f.worker, id, reason); err != nil {
				return err
			}
		}
		f.output = mails[0].ID
		out := json.RawMessage(fmt.Sprintf(`{"sent":true,"token":%q}`, webhookSecret))
		done := store.Completion{Worker: f.worker, IDs: []ulid.ULID{mails[0].ID, mails[1].ID}, Outputs: []json.RawMessage{out, nil}}
		if _, err := tx.CompleteJobs(ctx, done); err != nil {
			return err
		}
		f.completed, f.failedN = f.completed+2, f.failedN+2
		if _, err := tx.CancelJob(ctx, mails[2].ID); err != nil {
			return err
		}
		next, err := tx.ScheduleRetry(ctx, f.retried, newID(), 60e9)
		if err != nil {
			return err
		}
		f.retry = next.ID
		f.jobs++
		return nil
	})
	if err != nil {
		t.Fatalf("fill the fixture: %v", err)
	}
	return f
}

// history writes results on the queue "reports" over the last ten
// minutes: every 10 s a few jobs complete and some fail, the failures
// rising in the middle, so the throughput chart has a shape.
func (f *fixture) history(t *testing.T, back *time.Duration, rnd *clockrng.Rand) {
	t.Helper()
	ctx := context.Background()
	w := ulid.ULID{}
	for k := 59; k >= 1; k-- {
		*back = time.Duration(k) * 10 * time.Second
		done, failed := 4+(k/8)%3, 0
		if k > 20 && k < 36 {
			failed = 1 + k%3
		}
		err := f.st.InTx(ctx, func(tx store.Tx) error {
			now, err := tx.Now(ctx)
			if err != nil {
				return err
			}
			if w.IsZero() {
				w = clockrng.NewULID(now, rnd)
				if err := tx.RegisterWorker(ctx, w); err != nil {
					return err
				}
			}
			var jobs []store.NewJob
			for range done + failed {
				jobs = append(jobs, store.NewJob{ID: clockrng.NewULID(now, rnd), Queue: "reports", Payload: json.RawMessage(`{}`)})
			}
			if _, err := tx.InsertJobs(ctx, jobs); err != nil {
				return err
			}
			got, err := tx.Reserve(ctx, w, []string{"reports"}, len(jobs))
			if err != nil {
				return err
			}
			for _, j := range got[:failed] {
				if err := tx.FailJob(ctx, w, j.ID, "report generator: timeout"); err != nil {
					return err
				}
			}
			_, err = tx.CompleteJobs(ctx, store.Completion{Worker: w, IDs: ids(got[failed:])})
			return err
		})
		if err != nil {
			t.Fatalf("write the history: %v", err)
		}
		f.jobs += done + failed
		f.completed += done
		f.failedN += failed
	}
	*back = 0
	err := f.st.InTx(ctx, func(tx store.Tx) error { return tx.ShutdownWorker(ctx, w) })
	if err != nil {
		t.Fatal(err)
	}
}

func ids(jobs []store.Job) []ulid.ULID {
	out := make([]ulid.ULID, len(jobs))
	for i, j := range jobs {
		out[i] = j.ID
	}
	return out
}

// server serves the console on f with the admin token (empty: read-only).
func (f *fixture) server(t *testing.T, token string) *httptest.Server {
	t.Helper()
	return serve(t, Options{Store: f.st, AdminToken: token})
}

// serve serves the console with opts (logging to the test unless opts
// has a logger) until the test ends.
func serve(t *testing.T, opts Options) *httptest.Server {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(testLog{t}, nil))
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

// job reads one row straight from the store.
func (f *fixture) job(t *testing.T, id ulid.ULID) store.Job {
	t.Helper()
	var j store.Job
	err := f.st.InTx(context.Background(), func(tx store.Tx) error {
		var err error
		j, err = tx.GetJob(context.Background(), id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// insertTwo inserts, in one transaction, the jobs build makes of two ids
// drawn at the store's now, and returns the ids.
func (f *fixture) insertTwo(t *testing.T, build func(a, b ulid.ULID) []store.NewJob) (ulid.ULID, ulid.ULID) {
	t.Helper()
	ctx := context.Background()
	var a, b ulid.ULID
	err := f.st.InTx(ctx, func(tx store.Tx) error {
		now, err := tx.Now(ctx)
		if err != nil {
			return err
		}
		rnd := clockrng.NewRand(12)
		a, b = clockrng.NewULID(now, rnd), clockrng.NewULID(now, rnd)
		_, err = tx.InsertJobs(ctx, build(a, b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

// testLog writes the console's log lines to the test's output.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
