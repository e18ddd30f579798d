package worker

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
)

// enqueuePath enqueues emails to "x" by one of the paths a Client offers.
type enqueuePath struct {
	name string
	run  func(c *Client, st store.Store) error
}

var enqueuePaths = []enqueuePath{
	{"Enqueue", func(c *Client, _ store.Store) error {
		_, err := Enqueue(context.Background(), c, email{To: "x"})
		return err
	}},
	{"Enqueue At", func(c *Client, _ store.Store) error {
		_, err := Enqueue(context.Background(), c, email{To: "x"}, WithScheduledAt(epoch.Add(time.Hour)))
		return err
	}},
	{"EnqueueMany", func(c *Client, _ store.Store) error {
		_, err := EnqueueMany(context.Background(), c, []email{{To: "x"}, {To: "x"}})
		return err
	}},
	{"EnqueueTx", func(c *Client, st store.Store) error {
		return st.InTx(context.Background(), func(tx store.Tx) error {
			_, err := EnqueueTx(context.Background(), c, tx, email{To: "x"})
			return err
		})
	}},
}

func TestEnqueueHooksRunOnEveryPath(t *testing.T) {
	st, c := newMemClient(t)
	var seen []PendingJob
	must(t, c.OnEnqueue(func(ctx context.Context, job PendingJob) error {
		seen = append(seen, job)
		job.Metadata["tenant"] = "acme"
		job.Metadata["hooks"] = "1"
		return nil
	}, func(ctx context.Context, job PendingJob) error {
		job.Metadata["hooks"] += ",2"
		delete(job.Metadata, "drop")
		return nil
	}))
	for _, p := range enqueuePaths {
		must(t, p.run(c, st))
	}
	caller := map[string]string{"drop": "me", "source": "signup"}
	_, err := Enqueue(context.Background(), c, email{To: "caller"}, WithMetadata(caller))
	must(t, err)
	rows := listJobs(t, st, store.JobFilter{})
	if len(rows) != 6 || len(seen) != 6 {
		t.Fatalf("%d rows and %d hook calls, want 6 of each", len(rows), len(seen))
	}
	for _, r := range rows {
		var meta map[string]string
		must(t, json.Unmarshal(r.Metadata, &meta))
		want := map[string]string{"tenant": "acme", "hooks": "1,2"}
		if string(r.Payload) == `{"to":"caller"}` {
			want["source"] = "signup"
		}
		if !maps.Equal(meta, want) {
			t.Errorf("job %s metadata %v, want %v", r.Payload, meta, want)
		}
	}
	if s := seen[1]; s.Queue != "email" || string(s.Payload) != `{"to":"x"}` || !s.ScheduledAt.Equal(epoch.Add(time.Hour)) {
		t.Errorf("hook saw %+v, want queue, payload and the At time", s)
	}
	if !maps.Equal(caller, map[string]string{"drop": "me", "source": "signup"}) {
		t.Errorf("the caller's WithMetadata map was changed to %v", caller)
	}
}

func TestEnqueueHookRefusalWritesNothing(t *testing.T) {
	st, c := newMemClient(t)
	noTenant := errors.New("no tenant in context")
	calls := 0
	must(t, c.OnEnqueue(func(ctx context.Context, job PendingJob) error {
		if calls++; calls%2 == 0 { // the second job of a batch, to show the first is not written either
			return noTenant
		}
		return nil
	}))
	for _, p := range enqueuePaths {
		calls = 1 // refuse the first job of each path
		if err := p.run(c, st); !errors.Is(err, noTenant) || !strings.Contains(err.Error(), "enqueue hook refused payload 0") {
			t.Errorf("%s: error %v, want the hook's refusal of payload 0", p.name, err)
		}
	}
	calls = 1 // a caller that commits its transaction despite the refusal
	must(t, st.InTx(context.Background(), func(tx store.Tx) error {
		if _, err := EnqueueTx(context.Background(), c, tx, email{To: "x"}); !errors.Is(err, noTenant) {
			t.Errorf("EnqueueTx: %v, want the refusal", err)
		}
		return nil
	}))
	calls = 0
	_, err := EnqueueMany(context.Background(), c, []email{{To: "accepted"}, {To: "refused"}})
	if !errors.Is(err, noTenant) || !strings.Contains(err.Error(), `payload 1 for queue "email"`) {
		t.Errorf("EnqueueMany: %v, want the refusal of payload 1", err)
	}
	if rows := listJobs(t, st, store.JobFilter{}); len(rows) != 0 {
		t.Fatalf("a refused enqueue wrote %d jobs: %+v", len(rows), rows)
	}
}

func TestNilHooksAndMiddlewareAreRefused(t *testing.T) {
	_, c := newMemClient(t)
	ok := func(context.Context, PendingJob) error { return nil }
	if err := c.OnEnqueue(ok, nil); err == nil || err.Error() != "worker: enqueue hook 1 of 2 is nil" {
		t.Errorf("OnEnqueue with a nil hook: %v, want an error naming it", err)
	}
	if len(c.enqueueHooks()) != 0 {
		t.Error("OnEnqueue added hooks despite the error")
	}
	w := newInlineWorker(t, func(ctx context.Context, job RawJob, next func(context.Context) error) error { return next(ctx) })
	err := Handle(w, "q", func(context.Context, Job[struct{}]) error { return nil }, WithMiddleware(nil))
	if err == nil || !strings.Contains(err.Error(), `handler for queue "q": middleware 1 of 2 (the worker's first, then the handler's) is nil`) {
		t.Errorf("Handle with a nil middleware: %v, want an error naming it", err)
	}
}
