package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker"
	"github.com/tickwork/tickwork/worker/engine"
)

// The history log writes what props.Reconstruct reads: the worker's
// events as history.Translator maps them, store times only (an event no
// transaction stamped takes the next store time, a refused result the
// next later one), the life's opening
// Restarted, and leader terms as lease commits.
func TestHistoryLogTranslatesWorkerEvents(t *testing.T) {
	base := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	w1, w2 := ulid.MustParse("01J0000000000000000000000A"), ulid.MustParse("01J0000000000000000000000B")
	j1, j2, j3 := ulid.MustParse("01J00000000000000000000001"), ulid.MustParse("01J00000000000000000000002"), ulid.MustParse("01J00000000000000000000003")
	job := func(id ulid.ULID) store.Job { return store.Job{ID: id, Queue: "noop"} }

	var buf bytes.Buffer
	h := newHistoryLog(&buf, "p1")
	for _, e := range []engine.Event{
		{Kind: engine.EventRegistered, Worker: w1, StoreTime: at(1)},
		{Kind: engine.EventLeaseAcquired, Worker: w1, StoreTime: at(2), LeaseExpires: at(1002)},
		{Kind: engine.EventDutiesStarted, Worker: w1, StoreTime: at(3)},
		{Kind: engine.EventJobsPromoted, Worker: w1, StoreTime: at(3), Count: 1},
		{Kind: engine.EventDutiesEnded, Worker: w1, StoreTime: at(3)},
		{Kind: engine.EventJobStarted, Worker: w1, StoreTime: at(4), Job: job(j1)},
		{Kind: engine.EventStoreError, Worker: w1, Err: fmt.Errorf("boom")},
		{Kind: engine.EventWaiting, Worker: w1}, // the runner's waits, wake-ups and job passes are left out
		{Kind: engine.EventNotified, Worker: w1, Reason: "q"},
		{Kind: engine.EventTickStarted, Worker: w1, Reason: "notification"},
		{Kind: engine.EventJobPass, Worker: w1, StoreTime: at(5), Queues: []string{"q"}, Limit: 1},
		{Kind: engine.EventLeaseRenewed, Worker: w1, StoreTime: at(6), LeaseExpires: at(1006)},
		{Kind: engine.EventJobFinished, Worker: w1, Job: job(j1), Decision: worker.Retry, Reason: "HTTP 500"},
		{Kind: engine.EventResultRecorded, Worker: w1, StoreTime: at(7), Job: job(j1), Decision: worker.Retry, Reason: "HTTP 500"},
		{Kind: engine.EventDeclaredDead, Worker: w1},
		{Kind: engine.EventRegistered, Worker: w2, StoreTime: at(8)},
		{Kind: engine.EventJobStarted, Worker: w2, StoreTime: at(9), Job: job(j2)},
		{Kind: engine.EventCancelChecked, Worker: w2, StoreTime: at(10), Jobs: []ulid.ULID{j2}, Count: 1},
		{Kind: engine.EventJobCancelled, Worker: w2, Job: job(j2), Reason: engine.CancelByJobPass},
		{Kind: engine.EventStopRequested, Worker: w2},
		{Kind: engine.EventDrainDeadline, Worker: w2, Count: 1},
		{Kind: engine.EventJobsCancelled, Worker: w2, Count: 1},
		{Kind: engine.EventReleasedAtShutdown, Worker: w2, StoreTime: at(11), Job: job(j2)},
		{Kind: engine.EventResultRecorded, Worker: w2, StoreTime: at(11), Job: job(j2), Decision: worker.Retry, Reason: engine.ReasonShutdown},
		{Kind: engine.EventJobFinished, Worker: w1, Job: job(j3), Decision: worker.Succeed},
		{Kind: engine.EventResultFenced, Worker: w1, StoreTime: at(11), Job: job(j3), Decision: worker.Succeed},
		{Kind: engine.EventShutDown, Worker: w2, StoreTime: at(11)},
		{Kind: engine.EventLeaseReleased, Worker: w2, StoreTime: at(11)},
	} {
		h.Observe(e)
	}
	st := mem.New(func() time.Time { return at(12) })
	if err := h.shutdownCompleted(context.Background(), st); err != nil {
		t.Fatal(err)
	}

	got := decodeHistoryLines(t, buf.String())
	lease := func(holder ulid.ULID, elected, expires time.Time) []props.LeaseChange {
		return []props.LeaseChange{{After: &props.LeaseRow{Holder: holder, ElectedAt: elected, ExpiresAt: expires}}}
	}
	want := []props.Event{
		{Kind: props.Restarted, Time: at(1)},
		{Kind: props.Commit, Time: at(2), Worker: w1, Leases: lease(w1, at(2), at(1002))},
		{Kind: props.DutiesStarted, Time: at(3), Worker: w1, LeaseExpires: at(1002)},
		{Kind: props.DutiesEnded, Time: at(3), Worker: w1},
		{Kind: props.ExecStarted, Time: at(4), Worker: w1, Job: j1},
		{Kind: props.Commit, Time: at(6), Worker: w1, Leases: lease(w1, at(2), at(1006))},
		{Kind: props.ExecEnded, Time: at(7), Worker: w1, Job: j1, Decision: props.Retry, Reason: "HTTP 500"},
		{Kind: props.DeclaredDead, Time: at(8), Worker: w1},
		{Kind: props.ExecStarted, Time: at(9), Worker: w2, Job: j2},
		{Kind: props.CancelChecked, Time: at(10), Worker: w2, Asked: []ulid.ULID{j2}},
		{Kind: props.ExecCancelled, Time: at(11), Worker: w2, Job: j2},
		{Kind: props.ShutdownBegan, Time: at(11), Worker: w2},
		{Kind: props.DrainDeadline, Time: at(11), Worker: w2},
		{Kind: props.ExecsCancelled, Time: at(11), Worker: w2},
		{Kind: props.ExecEnded, Time: at(11), Worker: w1, Job: j3, Decision: props.Succeed},
		{Kind: props.Commit, Time: at(11), Worker: w2, Leases: []props.LeaseChange{{}}},
		{Kind: props.ResultFenced, Time: at(12), Worker: w1, Job: j3}, // the next transaction's time
		{Kind: props.ShutdownCompleted, Time: at(12), Worker: w2},
	}
	for i := range want {
		want[i].Process = "p1"
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d:\n%s", len(got), len(want), buf.String())
	}
	for i := range want {
		g, w := mustJSON(t, got[i]), mustJSON(t, want[i])
		if g != w {
			t.Errorf("event %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

// The state after the shutdown is read from the store: jobs still running
// under the worker and the lease holder are reported, not assumed away.
func TestHistoryLogShutdownReadsTheStore(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	st := mem.New(func() time.Time { return now })
	w, job := ulid.MustParse("01J0000000000000000000000A"), ulid.MustParse("01J00000000000000000000001")
	ctx := context.Background()
	err := st.InTx(ctx, func(tx store.Tx) error {
		if err := tx.RegisterWorker(ctx, w); err != nil {
			return err
		}
		if _, err := tx.InsertJobs(ctx, []store.NewJob{{ID: job, Queue: "noop", Payload: json.RawMessage(`{}`)}}); err != nil {
			return err
		}
		if _, err := tx.Reserve(ctx, w, []string{"noop"}, 1); err != nil {
			return err
		}
		_, err := tx.TryAcquireLease(ctx, w, time.Second)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	h := newHistoryLog(&buf, "p1")
	h.Observe(engine.Event{Kind: engine.EventRegistered, Worker: w, StoreTime: now})
	if err := h.shutdownCompleted(ctx, st); err != nil {
		t.Fatal(err)
	}
	got := decodeHistoryLines(t, buf.String())
	last := got[len(got)-1]
	if last.Kind != props.ShutdownCompleted || len(last.Running) != 1 || last.Running[0] != job || last.LeaseHolder != w {
		t.Fatalf("last event %+v, want shutdown_completed listing job %s running and %s holding the lease", last, job, w)
	}
}

// decodeHistoryLines reads one props.Event per line, refusing unknown
// fields as the chaos run's reader does.
func decodeHistoryLines(t *testing.T, s string) []props.Event {
	t.Helper()
	var out []props.Event
	for i, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var e props.Event
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("line %d %q: %v", i+1, line, err)
		}
		out = append(out, e)
	}
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A handler's end that waits for a store time is not stamped with an
// earlier one than the log has seen: a job recovered after a reservation
// whose commit went unseen is reported started at that reservation's
// time, which may come before the ended job's own start.
func TestHistoryLogNeverStampsAnEndBeforeWhatItFollows(t *testing.T) {
	at, w, j1, j2 := logTimes, logWorker, logJob1, logJob2
	events, text := observed(t,
		engine.Event{Kind: engine.EventRegistered, Worker: w, StoreTime: at(1)},
		engine.Event{Kind: engine.EventJobStarted, Worker: w, StoreTime: at(5), Job: store.Job{ID: j1, Queue: "q"}},
		engine.Event{Kind: engine.EventJobFinished, Worker: w, Job: store.Job{ID: j1, Queue: "q"}, Decision: worker.Fail, Reason: "HTTP 400"},
		engine.Event{Kind: engine.EventJobStarted, Worker: w, StoreTime: at(3), Job: store.Job{ID: j2, Queue: "q"}, Reason: "recovered after a reservation whose commit was not seen"},
		engine.Event{Kind: engine.EventResultRecorded, Worker: w, StoreTime: at(6), Job: store.Job{ID: j1, Queue: "q"}, Decision: worker.Fail, Reason: "HTTP 400"},
	)
	var ended *props.Event
	for _, e := range events {
		if e.Kind == props.ExecEnded {
			ended = &e
		}
	}
	if ended == nil || !ended.Time.Equal(at(5)) {
		t.Fatalf("the end of %s: %+v, want it stamped %v (its start), not the recovered job's earlier start\n%s", j1, ended, at(5), text)
	}
}

// A refused result is stamped with the store time of a later transaction
// than the pass that was refused: the rescue that fenced it started after
// that pass's transaction and committed before its completion ran, so
// the pass's own time would put the refusal before the rescue, where the
// row still runs under the worker.
func TestHistoryLogStampsARefusalAfterWhatFencedIt(t *testing.T) {
	at, w, j1, j2 := logTimes, logWorker, logJob1, logJob2
	events, _ := observed(t,
		engine.Event{Kind: engine.EventRegistered, Worker: w, StoreTime: at(1)},
		engine.Event{Kind: engine.EventJobStarted, Worker: w, StoreTime: at(2), Job: store.Job{ID: j1, Queue: "q"}},
		// The pass at 10 is refused j1's result (a rescue at 15 fenced
		// it) and reserves j2 in the same transaction.
		engine.Event{Kind: engine.EventResultFenced, Worker: w, StoreTime: at(10), Job: store.Job{ID: j1, Queue: "q"}, Decision: worker.Succeed},
		engine.Event{Kind: engine.EventJobStarted, Worker: w, StoreTime: at(10), Job: store.Job{ID: j2, Queue: "q"}},
		engine.Event{Kind: engine.EventResultRecorded, Worker: w, StoreTime: at(20), Job: store.Job{ID: j2, Queue: "q"}, Decision: worker.Succeed},
	)
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, fmt.Sprintf("%s@%d", e.Kind, e.Time.Sub(logTimes(0)).Milliseconds()))
	}
	want := "restarted@1 exec_started@2 exec_started@10 result_fenced@20"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("history log:\n got %s\nwant %s", got, want)
	}
}

// observed feeds events to a new history log and returns what it wrote,
// decoded and as text.
func observed(t *testing.T, events ...engine.Event) ([]props.Event, string) {
	t.Helper()
	var buf bytes.Buffer
	h := newHistoryLog(&buf, "p1")
	for _, e := range events {
		h.Observe(e)
	}
	return decodeHistoryLines(t, buf.String()), buf.String()
}

// The worker, jobs and times of the single-worker history log tests.
var (
	logWorker        = ulid.MustParse("01J0000000000000000000000A")
	logJob1, logJob2 = ulid.MustParse("01J00000000000000000000001"), ulid.MustParse("01J00000000000000000000002")
)

// logTimes returns the store time ms milliseconds into those tests.
func logTimes(ms int) time.Time {
	return time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond)
}

// unavailableFor is a store whose first n transactions fail as a
// terminated connection does.
type unavailableFor struct {
	store.Store
	n int
}

func (s *unavailableFor) InTx(ctx context.Context, fn func(store.Tx) error) error {
	if s.n > 0 {
		s.n--
		return fmt.Errorf("begin transaction: %w (FATAL: terminating connection due to administrator command)", store.ErrUnavailable)
	}
	return s.Store.InTx(ctx, fn)
}

// A connection lost while the log reads the state after a clean drain
// (the live chaos run terminates backends) is retried within the budget,
// and the log still ends with shutdown_completed; past the budget, or on
// an error that is not the store's unavailability, it fails.
func TestHistoryLogFinishRetriesALostConnection(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	w := ulid.MustParse("01J0000000000000000000000A")
	var buf bytes.Buffer
	h := newHistoryLog(&buf, "p1")
	h.Observe(engine.Event{Kind: engine.EventRegistered, Worker: w, StoreTime: now})
	st := &unavailableFor{Store: mem.New(func() time.Time { return now }), n: 2}
	if err := h.finish(st, time.Minute, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("two lost connections within a minute's budget: %v", err)
	}
	if got := decodeHistoryLines(t, buf.String()); got[len(got)-1].Kind != props.ShutdownCompleted {
		t.Fatalf("the log ends with %v, want shutdown_completed", got[len(got)-1].Kind)
	}
	st.n = 1
	if err := h.finish(st, 0, slog.New(slog.DiscardHandler)); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("a lost connection with no budget: %v, want the store's unavailability", err)
	}
}
