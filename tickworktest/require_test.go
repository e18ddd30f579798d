package tickworktest_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/tickworktest"
	"github.com/tickwork/tickwork/worker"
)

type order struct {
	ID    int      `json:"id"`
	Items []string `json:"items,omitempty"`
	Ship  *address `json:"ship,omitempty"`
}

type address struct {
	City string `json:"city,omitempty"`
	Zip  string `json:"zip,omitempty"`
}

func enqueue(t *testing.T, kit *tickworktest.Kit, queue string, payload any, opts ...worker.EnqueueOption) {
	t.Helper()
	if _, err := worker.Enqueue(context.Background(), kit.Client(), payload, append(opts, worker.WithQueue(queue))...); err != nil {
		t.Fatal(err)
	}
}

func TestRequireEnqueuedMatchesPartially(t *testing.T) {
	f := &fakeTB{}
	kit := tickworktest.New(f, tickworktest.Options{})
	enqueue(t, kit, "orders", order{ID: 1, Items: []string{"tea", "cup"}, Ship: &address{City: "Oslo", Zip: "0150"}})
	enqueue(t, kit, "orders", order{ID: 2}, worker.WithScheduledAt(kit.Now().Add(time.Hour)))
	st := kit.Store()

	var job store.Job
	wantPass(t, f, func() {
		job = tickworktest.RequireEnqueued(f, st, tickworktest.Want{Queue: "orders", Payload: map[string]any{"id": 1, "ship": map[string]any{"city": "Oslo"}}})
	})
	var got order
	if err := json.Unmarshal(job.Payload, &got); err != nil || got.ID != 1 {
		t.Fatalf("RequireEnqueued returned %s (%v), want order 1", job.Payload, err)
	}
	wantPass(t, f, func() {
		tickworktest.RequireEnqueued(f, st, tickworktest.Want{Payload: struct {
			Ship address `json:"ship"`
		}{address{Zip: "0150"}}}) // only the fields a test names
		tickworktest.RequireEnqueued(f, st, tickworktest.Want{Payload: json.RawMessage(`{"items":["tea","cup"]}`)})
		tickworktest.RequireEnqueued(f, st, tickworktest.Want{ScheduledAt: kit.Now().Add(time.Hour)})
		tickworktest.RequireEnqueued(f, st, tickworktest.Want{ScheduledAt: kit.Now()})
	})

	wantFailure(t, f, func() {
		tickworktest.RequireEnqueued(f, st, tickworktest.Want{Queue: "orders", Payload: map[string]any{"id": 1, "ship": map[string]any{"city": "Bergen"}}})
	}, `RequireEnqueued: no enqueued job matches queue "orders", payload with {"id":1,"ship":{"city":"Bergen"}}`,
		"2 jobs wait:", `on queue "orders", attempt 0, available, scheduled at 2030-01-01T00:00:00Z, payload {"id":1,`)
	wantFailure(t, f, func() {
		tickworktest.RequireEnqueued(f, st, tickworktest.Want{Payload: map[string]any{"items": []string{"tea"}}})
	}, "no enqueued job matches") // arrays match whole
	wantFailure(t, f, func() {
		tickworktest.RequireEnqueued(f, st, tickworktest.Want{Queue: "mail"})
	}, `no enqueued job matches queue "mail"`)
	wantFailure(t, f, func() {
		tickworktest.RequireEnqueued(f, st, tickworktest.Want{ScheduledAt: kit.Now().Add(time.Minute)})
	}, "no enqueued job matches scheduled at 2030-01-01T00:01:00Z")
	wantFailure(t, f, func() {
		tickworktest.RequireEnqueued(f, st, tickworktest.Want{Queue: "orders"})
	}, `2 enqueued jobs match queue "orders", want exactly one`)
	wantFailure(t, f, func() {
		tickworktest.RequireEnqueued(f, st, tickworktest.Want{Payload: func() {}})
	}, "Want.Payload", "unsupported type")
}

func TestRequireNotEnqueued(t *testing.T) {
	f := &fakeTB{}
	kit := tickworktest.New(f, tickworktest.Options{})
	enqueue(t, kit, "orders", order{ID: 7})
	wantPass(t, f, func() {
		tickworktest.RequireNotEnqueued(f, kit.Store(), tickworktest.Want{Queue: "orders", Payload: order{ID: 8}})
		tickworktest.RequireNotEnqueued(f, kit.Store(), tickworktest.Want{Queue: "refunds"})
	})
	wantFailure(t, f, func() {
		tickworktest.RequireNotEnqueued(f, kit.Store(), tickworktest.Want{Payload: order{ID: 7}})
	}, `RequireNotEnqueued: 1 enqueued jobs match payload with {"id":7}, want none`, `payload {"id":7}`)
}

// RequireEnqueuedTx sees what the caller's transaction enqueued before it
// commits; RequireEnqueued, outside it, does not.
func TestRequireEnqueuedTxSeesTheUncommittedJob(t *testing.T) {
	f := &fakeTB{}
	kit := tickworktest.New(f, tickworktest.Options{})
	ctx := context.Background()
	want := tickworktest.Want{Queue: "orders", Payload: order{ID: 3}}
	err := kit.Store().InTx(ctx, func(tx store.Tx) error {
		if _, err := worker.EnqueueTx(ctx, kit.Client(), tx, order{ID: 3}, worker.WithQueue("orders")); err != nil {
			return err
		}
		wantPass(t, f, func() { tickworktest.RequireEnqueuedTx(f, tx, want) })
		wantFailure(t, f, func() { tickworktest.RequireNotEnqueuedTx(f, tx, want) }, "want none")
		wantFailure(t, f, func() { tickworktest.RequireEnqueuedTx(f, tx, tickworktest.Want{Queue: "refunds"}) }, "no enqueued job matches")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wantPass(t, f, func() { tickworktest.RequireEnqueued(f, kit.Store(), want) })
}
