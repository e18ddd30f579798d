package worker_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/worker"
)

// Welcome is a typed payload; its Queue method routes it.
type Welcome struct {
	User string `json:"user"`
}

func (Welcome) Queue() string { return "welcome" }

// quietConfig polls often so the examples end quickly.
func quietConfig() worker.Config {
	cfg := worker.DefaultConfig()
	cfg.PollInterval = 10 * time.Millisecond
	cfg.LeaderInterval = 10 * time.Millisecond
	return cfg
}

// A worker with one typed handler processes a job enqueued by a client.
// Production code opens a store/pg store instead of the in-memory one; Run
// returns after a graceful shutdown once ctx is cancelled.
func ExampleWorker_Run() {
	st := mem.New(time.Now)
	w, err := worker.New(st, worker.Options{Config: quietConfig(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	err = worker.Handle(w, "welcome", func(ctx context.Context, job worker.Job[Welcome]) error {
		fmt.Printf("welcome, %s (attempt %d)\n", job.Payload.User, job.Attempt)
		stop() // the example ends after one job; Run then drains and returns
		return nil
	}, worker.WithTimeout(time.Minute))
	if err != nil {
		panic(err)
	}

	client := worker.NewClient(st, nil)
	if _, err := worker.Enqueue(context.Background(), client, Welcome{User: "ada"}); err != nil {
		panic(err)
	}
	if err := w.Run(ctx); err != nil {
		panic(err)
	}
	// Output: welcome, ada (attempt 0)
}

// Handlers decide a job's fate with their error: nil succeeds, FailJob
// ends the job, any other error is retried with backoff.
func ExampleHandle() {
	st := mem.New(time.Now)
	cfg := quietConfig()
	cfg.Backoff.Base = 10 * time.Millisecond
	w, _ := worker.New(st, worker.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	ctx, stop := context.WithCancel(context.Background())
	_ = worker.Handle(w, "charge", func(ctx context.Context, job worker.Job[map[string]int]) error {
		switch {
		case job.Payload["cents"] <= 0:
			return worker.FailJob(fmt.Errorf("amount %d is not positive", job.Payload["cents"]))
		case job.Attempt == 0:
			return errors.New("payment provider timed out") // retried
		}
		fmt.Printf("charged %d cents on attempt %d\n", job.Payload["cents"], job.Attempt)
		stop()
		return nil
	})
	client := worker.NewClient(st, nil)
	_, _ = worker.Enqueue(context.Background(), client, map[string]int{"cents": 250}, worker.WithQueue("charge"))
	_ = w.Run(ctx)
	// Output: charged 250 cents on attempt 1
}

// New checks the configuration up front and reports every problem.
func ExampleNew() {
	// Each zero field takes its default; NoRetries says "none" where zero
	// would mean the default (10).
	cfg := worker.Config{MaxRetries: worker.NoRetries, MaxConcurrent: -1}
	cfg.Schedules = []worker.ScheduleSpec{{Name: "hourly", Cron: "0 * * * *", Queue: "q", Payload: []byte(`{}`)}}
	_, err := worker.New(mem.New(time.Now), worker.Options{Config: cfg})
	fmt.Println(err)
	// Output:
	// worker config: MaxConcurrent is -1, must be at least 1
	// worker config: schedule "hourly": cron expression "0 * * * *" (want 6 fields, seconds first): expected exactly 6 fields, found 5: [0 * * * *]
}

// Enqueue stores one typed job; the payload type names its queue.
func ExampleEnqueue() {
	st := mem.New(time.Now)
	client := worker.NewClient(st, nil)
	id, err := worker.Enqueue(context.Background(), client, Welcome{User: "linus"}, worker.WithMetadata(map[string]string{"source": "signup"}))
	fmt.Println(id.IsZero(), err)
	// Output: false <nil>
}

// EnqueueTx writes the job in a transaction of the client's store: it
// exists only if that transaction commits. Any store has them, the
// in-memory one included; with PostgreSQL an application enqueues in its
// own pgx transaction with EnqueuePgxTx.
func ExampleEnqueueTx() {
	st := mem.New(time.Now)
	client := worker.NewClient(st, nil)
	ctx := context.Background()
	_ = st.InTx(ctx, func(tx store.Tx) error {
		// ... the caller's own writes ...
		_, err := worker.EnqueueTx(ctx, client, tx, Welcome{User: "grace"})
		return err
	})
	_ = st.InTx(ctx, func(tx store.Tx) error {
		jobs, _ := tx.ListJobs(ctx, store.JobFilter{Queue: "welcome"})
		fmt.Println(len(jobs), "job on queue welcome:", string(jobs[0].Payload))
		return nil
	})
	// Output: 1 job on queue welcome: {"user":"grace"}
}

// EnqueuePgxTx writes the job in the application's own pgx transaction,
// beside its own rows: the signup and its welcome job commit together or
// not at all.
func ExampleEnqueuePgxTx() {
	ctx := context.Background()
	st, err := pg.Open(ctx, os.Getenv("DATABASE_URL"), pg.Options{})
	if err != nil {
		panic(err)
	}
	defer st.Close()
	client := worker.NewClient(st, nil)
	tx, err := st.Pool().Begin(ctx) // or a transaction of the application's own pool
	if err != nil {
		panic(err)
	}
	defer tx.Rollback(ctx) // a no-op after Commit
	if _, err := tx.Exec(ctx, "INSERT INTO users (name) VALUES ($1)", "grace"); err != nil {
		panic(err)
	}
	if _, err := worker.EnqueuePgxTx(ctx, client, tx, Welcome{User: "grace"}); err != nil {
		panic(err)
	}
	if err := tx.Commit(ctx); err != nil {
		panic(err)
	}
}

// EnqueueMany stores a batch in one insert; WithScheduledAt delays jobs.
func ExampleEnqueueMany() {
	st := mem.New(func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) })
	client := worker.NewClient(st, nil)
	ctx := context.Background()
	later := time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC)
	ids, err := worker.EnqueueMany(ctx, client, []Welcome{{"a"}, {"b"}, {"c"}}, worker.WithScheduledAt(later))
	fmt.Println(len(ids), err)
	_, err = worker.Enqueue(ctx, client, struct{}{})
	fmt.Println(err)
	// Output:
	// 3 <nil>
	// worker: no queue known for payload type struct {}: give it a Queue() string method, call RegisterQueue, or pass WithQueue
}

// Schedules enqueue recurring jobs: six cron fields, seconds first, UTC.
// Only the leader enqueues, once per cron time, and never while the
// previous run is still going.
func Example_schedules() {
	var storeTime atomic.Int64 // the example moves the store's clock by hand
	storeTime.Store(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	st := mem.New(func() time.Time { return time.Unix(0, storeTime.Load()).UTC() })

	cfg := quietConfig()
	cfg.Schedules = []worker.ScheduleSpec{{Name: "nightly-report", Cron: "0 0 3 * * *", Queue: "report", Payload: []byte(`{}`)}}
	w, _ := worker.New(st, worker.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	ctx, stop := context.WithCancel(context.Background())
	_ = worker.Handle(w, "report", func(ctx context.Context, job worker.Job[struct{}]) error {
		fmt.Printf("%s run for %v\n", job.ScheduleName, job.ScheduledAt)
		stop()
		return nil
	})
	// Jump the store's clock past 03:00 once the run is enqueued.
	clockDone := make(chan struct{})
	defer func() { <-clockDone }()
	go func() {
		defer close(clockDone)
		for ctx.Err() == nil {
			_ = st.InTx(context.Background(), func(tx store.Tx) error {
				if jobs, _ := tx.ListJobs(ctx, store.JobFilter{Queue: "report"}); len(jobs) > 0 {
					storeTime.Store(jobs[0].ScheduledAt.UnixNano())
				}
				return nil
			})
			time.Sleep(5 * time.Millisecond)
		}
	}()
	_ = w.Run(ctx)
	// Output: nightly-report run for 2030-01-01 03:00:00 +0000 UTC
}
