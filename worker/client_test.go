package worker

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	"go.opentelemetry.io/otel/trace"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

type email struct {
	To string `json:"to"`
}

// epoch is the store time client tests start at.
var epoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func (email) Queue() string { return "email" }

type untyped struct {
	X float64 `json:"x"`
}

func newMemClient(t *testing.T) (*mem.Store, *Client) {
	t.Helper()
	st := mem.New(func() time.Time { return epoch })
	return st, NewClient(st, clockrng.NewRand(1))
}

func TestEnqueueResolvesTheQueue(t *testing.T) {
	st, c := newMemClient(t)
	ctx := context.Background()
	id, err := Enqueue(ctx, c, email{To: "a@example.com"})
	must(t, err)
	if rows := listJobs(t, st, store.JobFilter{Queue: "email"}); len(rows) != 1 || rows[0].ID != id || string(rows[0].Payload) != `{"to":"a@example.com"}` {
		t.Fatalf("jobs on email: %+v, want the one enqueued", rows)
	}
	_, err = Enqueue(ctx, c, untyped{X: 1})
	if err == nil || !strings.Contains(err.Error(), "no queue known for payload type worker.untyped") {
		t.Fatalf("enqueue of a type without queue: %v, want a clear error", err)
	}
	must(t, RegisterQueue[untyped](c, "numbers"))
	must(t, RegisterQueue[email](c, "mail-v2"))
	_, err = Enqueue(ctx, c, untyped{X: 2})
	must(t, err)
	_, err = Enqueue(ctx, c, email{})
	must(t, err)
	_, err = Enqueue(ctx, c, email{}, WithQueue("explicit"))
	must(t, err)
	for q, n := range map[string]int{"email": 1, "numbers": 1, "mail-v2": 1, "explicit": 1} {
		if got := len(listJobs(t, st, store.JobFilter{Queue: q})); got != n {
			t.Errorf("%d jobs on %q, want %d", got, q, n)
		}
	}
}

func TestEnqueueBadPayloadWritesNothing(t *testing.T) {
	st, c := newMemClient(t)
	must(t, RegisterQueue[untyped](c, "numbers"))
	_, err := EnqueueMany(context.Background(), c, []untyped{{1}, {math.NaN()}, {3}})
	if err == nil || !strings.Contains(err.Error(), "encode payload 1") {
		t.Fatalf("EnqueueMany with an unencodable payload: %v, want an error naming payload 1", err)
	}
	if rows := listJobs(t, st, store.JobFilter{}); len(rows) != 0 {
		t.Fatalf("%d jobs written despite the error", len(rows))
	}
}

func TestEnqueueManyKeepsOrderAndAt(t *testing.T) {
	st, c := newMemClient(t)
	at := epoch.Add(time.Hour)
	ids, err := EnqueueMany(context.Background(), c, []email{{"1"}, {"2"}, {"3"}, {"4"}}, WithScheduledAt(at))
	must(t, err)
	if !slices.IsSortedFunc(ids, func(a, b ulid.ULID) int { return a.Compare(b) }) {
		t.Fatalf("ids %v are not ascending in payload order", ids)
	}
	rows := listJobs(t, st, store.JobFilter{})
	for i, r := range rows {
		var p email
		must(t, json.Unmarshal(r.Payload, &p))
		if r.ID != ids[i] || p.To != string(rune('1'+i)) || r.Status != store.Scheduled || !r.ScheduledAt.Equal(at) {
			t.Errorf("row %d: %+v, want payload %d scheduled at %v", i, r, i+1, at)
		}
	}
}

func TestEnqueueTxFollowsTheCallersTransaction(t *testing.T) {
	st, c := newMemClient(t)
	ctx := context.Background()
	rollback := errors.New("caller gives up")
	err := st.InTx(ctx, func(tx store.Tx) error {
		if _, err := EnqueueTx(ctx, c, tx, email{To: "x"}); err != nil {
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	if rows := listJobs(t, st, store.JobFilter{}); len(rows) != 0 {
		t.Fatalf("job written by a rolled-back transaction: %+v", rows)
	}
	must(t, st.InTx(ctx, func(tx store.Tx) error {
		_, err := EnqueueTx(ctx, c, tx, email{To: "y"})
		return err
	}))
	if rows := listJobs(t, st, store.JobFilter{}); len(rows) != 1 {
		t.Fatalf("%d jobs after the commit, want 1", len(rows))
	}
}

// With PostgreSQL the caller's own pgx transaction carries the job.
func TestEnqueuePgxTxFollowsTheCallersTransaction(t *testing.T) {
	st := pgtest.Open(t, nil)
	c := NewClient(st, clockrng.NewRand(1))
	ctx := context.Background()
	for _, commit := range []bool{false, true} {
		tx, err := st.Pool().Begin(ctx)
		must(t, err)
		_, err = EnqueuePgxTx(ctx, c, tx, email{To: "pg"})
		must(t, err)
		if commit {
			must(t, tx.Commit(ctx))
		} else {
			must(t, tx.Rollback(ctx))
		}
	}
	if rows := listJobs(t, st, store.JobFilter{Queue: "email"}); len(rows) != 1 {
		t.Fatalf("%d jobs, want only the committed one", len(rows))
	}
}

// A refused job leaves the caller's transaction usable: the application's
// own writes in it still commit.
func TestEnqueuePgxTxRefusalKeepsTheCallersTransaction(t *testing.T) {
	st := pgtest.Open(t, nil)
	c := NewClient(st, clockrng.NewRand(1))
	ctx := context.Background()
	tx, err := st.Pool().Begin(ctx)
	must(t, err)
	if _, err := EnqueuePgxTx(ctx, c, tx, email{To: "bad"}, WithPriority(-1)); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("EnqueuePgxTx with priority -1: %v, want ErrInvalid", err)
	}
	_, err = EnqueuePgxTx(ctx, c, tx, email{To: "good"})
	must(t, err)
	must(t, tx.Commit(ctx))
	if rows := listJobs(t, st, store.JobFilter{Queue: "email"}); len(rows) != 1 || !strings.Contains(string(rows[0].Payload), "good") {
		t.Fatalf("rows %v, want the one good job", rows)
	}
}

// A store that cannot join a pgx transaction says so and writes nothing.
func TestEnqueuePgxTxNeedsAPostgreSQLStore(t *testing.T) {
	st := mem.New(time.Now)
	_, err := EnqueuePgxTx(context.Background(), NewClient(st, clockrng.NewRand(1)), nil, email{To: "x"})
	if err == nil || !strings.Contains(err.Error(), "*mem.Store") {
		t.Fatalf("EnqueuePgxTx on store/mem: %v, want an error naming the store", err)
	}
	if rows := listJobs(t, st, store.JobFilter{}); len(rows) != 0 {
		t.Fatalf("%d rows written", len(rows))
	}
}

func TestEnqueueStoresTraceContextAndMetadata(t *testing.T) {
	st, c := newMemClient(t)
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled,
	})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	_, err := Enqueue(ctx, c, email{}, WithMetadata(map[string]string{"tenant": "acme"}))
	must(t, err)
	var meta map[string]string
	must(t, json.Unmarshal(listJobs(t, st, store.JobFilter{})[0].Metadata, &meta))
	if meta["tenant"] != "acme" || !strings.Contains(meta["traceparent"], sc.TraceID().String()) {
		t.Fatalf("metadata %v, want the tenant entry and a traceparent for trace %s", meta, sc.TraceID())
	}
	links := linkFromMetadata(listJobs(t, st, store.JobFilter{})[0].Metadata)
	if len(links) != 1 || links[0].SpanContext.TraceID() != sc.TraceID() || links[0].SpanContext.SpanID() != sc.SpanID() {
		t.Fatalf("links %v, want one to the enqueuing span", links)
	}
}
