package worker_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/tickworktest"
	"github.com/tickwork/tickwork/worker"
)

// exampleT stands in for the *testing.T the tickworktest kit wants, which
// examples do not have: a failure panics.
type exampleT struct{ testing.TB }

func (exampleT) Helper()                           {}
func (exampleT) Context() context.Context          { return context.Background() }
func (exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// A handler bounds its own jobs' attempts and decides their delays; the
// config's MaxRetries and Backoff stay the other queues' defaults. A job
// enqueued WithMaxAttempts keeps its own bound. The kit's virtual clock
// shows each retry's time.
func ExampleWithQueueMaxAttempts() {
	kit := tickworktest.New(exampleT{}, tickworktest.Options{})
	_ = worker.Handle(kit.Worker(), "sms", func(ctx context.Context, job worker.Job[string]) error {
		return errors.New("gateway busy")
	}, worker.WithQueueMaxAttempts(2), worker.WithRetryDelay(func(attempt int, err error, r *clockrng.Rand) time.Duration {
		return time.Duration(attempt+1) * time.Minute // jitter would come from r
	}))
	ctx := context.Background()
	_, _ = worker.Enqueue(ctx, kit.Client(), "hello", worker.WithQueue("sms"))
	_, _ = worker.Enqueue(ctx, kit.Client(), "urgent", worker.WithQueue("sms"), worker.WithMaxAttempts(3))
	for _, a := range kit.Drain() {
		fmt.Printf("%s %s attempt %d failed, retry: %v\n", a.Job.StartedAt.Format(time.TimeOnly), a.Job.Payload, a.Job.Attempt, a.Retry != nil)
	}
	// Output:
	// 00:00:00 "hello" attempt 0 failed, retry: true
	// 00:00:00 "urgent" attempt 0 failed, retry: true
	// 00:01:00 "urgent" attempt 1 failed, retry: true
	// 00:01:00 "hello" attempt 1 failed, retry: false
	// 00:03:00 "urgent" attempt 2 failed, retry: false
}

// A handler that cannot run its job yet snoozes it: the job runs again
// after the snooze, as the same attempt, so snoozing uses up no retry.
// Past Config.MaxSnoozes snoozes the job fails for good.
func ExampleSnooze() {
	cfg := worker.DefaultConfig()
	cfg.MaxSnoozes = 2
	kit := tickworktest.New(exampleT{}, tickworktest.Options{Worker: worker.Options{Config: cfg}})
	dataArrives := kit.Now().Add(20 * time.Second) // of the "daily" report; "yearly" never gets it
	_ = worker.Handle(kit.Worker(), "report", func(ctx context.Context, job worker.Job[string]) error {
		if job.Payload == "daily" && !kit.Now().Before(dataArrives) {
			return nil
		}
		return worker.Snooze(30 * time.Second) // the data is not there yet
	})
	ctx := context.Background()
	_, _ = worker.Enqueue(ctx, kit.Client(), "daily", worker.WithQueue("report"))
	_, _ = worker.Enqueue(ctx, kit.Client(), "yearly", worker.WithQueue("report"))
	for _, a := range kit.Drain() {
		fmt.Printf("%s %s attempt %d snoozes %d: %s\n", a.Job.StartedAt.Format(time.TimeOnly), a.Job.Payload, a.Job.Attempt, a.Job.Snoozes, a.Job.Status)
		if a.Job.FailedReason != "" {
			fmt.Println("  ", a.Job.FailedReason)
		}
	}
	// Output:
	// 00:00:00 "daily" attempt 0 snoozes 0: snoozed
	// 00:00:00 "yearly" attempt 0 snoozes 0: snoozed
	// 00:00:30 "yearly" attempt 0 snoozes 1: snoozed
	// 00:00:30 "daily" attempt 0 snoozes 1: completed
	// 00:01:00 "yearly" attempt 0 snoozes 2: failed
	//    asked to snooze again after 2 snoozes, the most MaxSnoozes allows
}

// A schedule with a unique key skips a cron time while another job holds
// the key: here a manual run of the nightly report, enqueued with the
// same key, makes the leader skip the schedule's 03:00 run.
func ExampleScheduleSpec_uniqueKey() {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	st := mem.New(func() time.Time { return t0 }) // the store's clock stands still
	cfg := quietConfig()
	cfg.Schedules = []worker.ScheduleSpec{{Name: "nightly-report", Cron: "0 0 3 * * *", Queue: "report", Payload: []byte(`{}`),
		UniqueKey: "nightly-report"}}
	w, _ := worker.New(st, worker.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	_ = worker.Handle(w, "report", func(ctx context.Context, job worker.Job[struct{}]) error { return nil })
	ctx, stop := context.WithCancel(context.Background())
	client := worker.NewClient(st, nil)
	_, _ = worker.Enqueue(ctx, client, struct{}{}, worker.WithQueue("report"), worker.WithScheduledAt(t0.Add(2*time.Hour)), worker.WithUniqueKey("nightly-report"))

	done := make(chan error)
	go func() { done <- w.Run(ctx) }()
	var sc store.Schedule
	for sc.LastScheduledAt.IsZero() { // until the leader's first pass
		time.Sleep(5 * time.Millisecond)
		_ = st.InTx(ctx, func(tx store.Tx) error {
			rows, err := tx.ListSchedules(ctx)
			if len(rows) > 0 {
				sc = rows[0]
			}
			return err
		})
	}
	stop()
	<-done
	var jobs []store.Job
	_ = st.InTx(context.Background(), func(tx store.Tx) (err error) {
		jobs, err = tx.ListJobs(context.Background(), store.JobFilter{Queue: "report"})
		return err
	})
	fmt.Printf("%s advanced to %s, run enqueued: %v\n", sc.Name, sc.LastScheduledAt.Format(time.TimeOnly), !sc.LastScheduledJobID.IsZero())
	fmt.Printf("%d job on queue report, the manual run, due %s\n", len(jobs), jobs[0].ScheduledAt.Format(time.TimeOnly))
	// Output:
	// nightly-report advanced to 03:00:00, run enqueued: false
	// 1 job on queue report, the manual run, due 02:00:00
}
