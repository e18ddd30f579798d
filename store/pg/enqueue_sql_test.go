package pg_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
	"github.com/tickwork/tickwork/worker"
)

// sqlArg is one named argument of the enqueue function, with the type its
// placeholder is cast to.
type sqlArg struct {
	name, cast string
	value      any
}

// enqueueCall is the statement that calls s's enqueue function on queue and
// payload with args, and its arguments.
func enqueueCall(schema, queue, payload string, args ...sqlArg) (string, []any) {
	sql := "SELECT " + pgx.Identifier{schema}.Sanitize() + ".enqueue($1, $2::jsonb"
	values := []any{queue, payload}
	for i, a := range args {
		sql += fmt.Sprintf(", %s => $%d::%s", a.name, i+3, a.cast)
		values = append(values, a.value)
	}
	return sql + ")", values
}

// enqueueSQL enqueues through the function, in a transaction of its own.
func enqueueSQL(t *testing.T, s *pg.Store, queue, payload string, args ...sqlArg) (ulid.ULID, error) {
	t.Helper()
	sql, values := enqueueCall(s.Schema(), queue, payload, args...)
	var id pgtype.UUID
	err := s.Pool().QueryRow(t.Context(), sql, values...).Scan(&id)
	return ulid.ULID(id.Bytes), err
}

// enqueueStep is one enqueue, said for the Go client and for the function.
type enqueueStep struct {
	queue, payload string
	opts           []worker.EnqueueOption
	args           []sqlArg
}

var (
	future = time.Date(2099, 1, 2, 3, 4, 5, 6000, time.UTC)
	past   = time.Date(2001, 1, 2, 3, 4, 5, 6000, time.UTC)
)

// enqueueSteps cover every argument the function takes, a key already
// held (twice, with and without completed covered), and a scheduled job.
var enqueueSteps = []enqueueStep{
	{queue: "emails", payload: `{"to":"a@example.com","n":1}`},
	{queue: "emails", payload: `{"to":"b"}`, opts: []worker.EnqueueOption{worker.WithPriority(3), worker.WithMetadata(map[string]string{"tenant": "t1", "a": "b"})},
		args: []sqlArg{{"priority", "int", 3}, {"metadata", "jsonb", `{"tenant":"t1","a":"b"}`}}},
	{queue: "later", payload: `[1,2]`, opts: []worker.EnqueueOption{worker.WithScheduledAt(future)},
		args: []sqlArg{{"scheduled_at", "timestamptz", future}}},
	{queue: "emails", payload: `"late"`, opts: []worker.EnqueueOption{worker.WithScheduledAt(past)},
		args: []sqlArg{{"scheduled_at", "timestamptz", past}}},
	{queue: "emails", payload: `{"u":1}`, opts: []worker.EnqueueOption{worker.WithUniqueKey("k1")},
		args: []sqlArg{{"unique_key", "text", "k1"}}},
	{queue: "other", payload: `{"u":2}`, opts: []worker.EnqueueOption{worker.WithUniqueKey("k1"), worker.WithPriority(1)},
		args: []sqlArg{{"unique_key", "text", "k1"}, {"priority", "int", 1}}}, // held: the first's id
	{queue: "emails", payload: `{"u":3}`, opts: []worker.EnqueueOption{worker.WithUniqueKey("k2"), worker.WithUniqueWhile(store.Completed, store.Cancelled)},
		args: []sqlArg{{"unique_key", "text", "k2"}, {"unique_while", "text[]", []string{"cancelled", "completed"}}}},
	{queue: "emails", payload: `{"u":4}`, opts: []worker.EnqueueOption{worker.WithUniqueKey("k2"), worker.WithUniqueWhile(store.Completed, store.Cancelled)},
		args: []sqlArg{{"unique_key", "text", "k2"}, {"unique_while", "text[]", []string{"completed", "cancelled"}}}}, // held
	{queue: "emails", payload: `{"u":5}`, opts: []worker.EnqueueOption{worker.WithUniqueKey("k2")},
		args: []sqlArg{{"unique_key", "text", "k2"}}}, // another stored key: inserted
	{queue: "keyed", payload: `{}`, opts: []worker.EnqueueOption{worker.WithMaxAttempts(3), worker.PartitionKey("tenant-1")},
		args: []sqlArg{{"max_attempts", "int", 3}, {"partition_key", "text", "tenant-1"}}},
}

// The function writes the rows the Go client writes, column by column (ids
// and times aside; payload and metadata as JSON values, which jsonb renders
// in its own spacing and key order), and a key already held returns the
// id of the row holding it, as worker.Enqueue does.
func TestEnqueueFunctionWritesTheGoClientsRows(t *testing.T) {
	viaGo, viaSQL := pgtest.Open(t, nil), pgtest.Open(t, nil)
	client := worker.NewClient(viaGo, nil)
	var goIDs, sqlIDs []ulid.ULID
	for i, step := range enqueueSteps {
		id, err := worker.Enqueue(t.Context(), client, json.RawMessage(step.payload), append(step.opts, worker.WithQueue(step.queue))...)
		if err != nil {
			t.Fatalf("step %d through Go: %v", i, err)
		}
		goIDs = append(goIDs, id)
		if id, err = enqueueSQL(t, viaSQL, step.queue, step.payload, step.args...); err != nil {
			t.Fatalf("step %d through SQL: %v", i, err)
		}
		sqlIDs = append(sqlIDs, id)
	}
	for i := range enqueueSteps {
		if g, s := slicesIndex(goIDs, goIDs[i]), slicesIndex(sqlIDs, sqlIDs[i]); g != s {
			t.Errorf("step %d: the Go client returned step %d's id, the function step %d's", i, g, s)
		}
		goRow, _ := getJob(t, viaGo, goIDs[i])
		sqlRow, _ := getJob(t, viaSQL, sqlIDs[i])
		if ms := uint64(sqlRow.CreatedAt.UnixMilli()); sqlRow.ID.Time() != ms {
			t.Errorf("step %d: the function's id %s holds time %d ms; want its creation time's %d, as a ULID of the Go client's", i, sqlRow.ID, sqlRow.ID.Time(), ms)
		}
		if g, s := comparable(t, goRow), comparable(t, sqlRow); !reflect.DeepEqual(g, s) {
			t.Errorf("step %d: rows differ\n Go:  %+v\n SQL: %+v", i, g, s)
		}
	}
	if g, s := countJobs(t, viaGo), countJobs(t, viaSQL); g != s || g != len(enqueueSteps)-2 {
		t.Errorf("%d rows through Go, %d through SQL; want %d each", g, s, len(enqueueSteps)-2)
	}
}

// A key held by a row the Go client wrote is held for the function too,
// and the other way round: both write the same stored key.
func TestEnqueueFunctionSharesUniqueKeysWithTheGoClient(t *testing.T) {
	s := pgtest.Open(t, nil)
	client := worker.NewClient(s, nil)
	byGo, err := worker.Enqueue(t.Context(), client, json.RawMessage(`{}`), worker.WithQueue("q"), worker.WithUniqueKey("shared"),
		worker.WithUniqueWhile(store.Completed))
	if err != nil {
		t.Fatal(err)
	}
	got, err := enqueueSQL(t, s, "q", `{}`, sqlArg{"unique_key", "text", "shared"}, sqlArg{"unique_while", "text[]", []string{"completed"}})
	if err != nil || got != byGo {
		t.Fatalf("the function returned %s, %v; want the Go client's row %s", got, err, byGo)
	}
	bySQL, err := enqueueSQL(t, s, "q", `{}`, sqlArg{"unique_key", "text", "other"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err = worker.Enqueue(t.Context(), client, json.RawMessage(`{}`), worker.WithQueue("q"), worker.WithUniqueKey("other")); err != nil || got != bySQL {
		t.Fatalf("the Go client returned %s, %v; want the function's row %s", got, err, bySQL)
	}
	if n := countJobs(t, s); n != 2 {
		t.Errorf("%d rows; want 2", n)
	}
}

// comparable is a row with what may differ between two enqueues of the
// same job cleared: its id, its creation time, and its scheduled time when
// that is the creation time. Payload and metadata become canonical JSON.
func comparable(t *testing.T, j store.Job) store.Job {
	t.Helper()
	if j.ScheduledAt.Equal(j.CreatedAt) {
		j.ScheduledAt = time.Time{}
	}
	j.ID, j.CreatedAt = ulid.ULID{}, time.Time{}
	j.Payload, j.Metadata = canonicalJSON(t, j.Payload), canonicalJSON(t, j.Metadata)
	return j
}

func canonicalJSON(t *testing.T, doc json.RawMessage) json.RawMessage {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("stored JSON %s: %v", doc, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func countJobs(t *testing.T, s *pg.Store) int {
	t.Helper()
	var n int
	if err := s.Pool().QueryRow(t.Context(), "SELECT count(*) FROM "+pgx.Identifier{s.Schema(), "jobs"}.Sanitize()).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func slicesIndex(ids []ulid.ULID, id ulid.ULID) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

// Bad input is refused with SQLSTATE 22023 and a message naming it, and
// writes nothing; store/pg reports the error as store.ErrInvalid. The
// limits are store's: the same values at the limit are accepted.
func TestEnqueueFunctionRefusesBadInput(t *testing.T) {
	s := pgtest.Open(t, nil)
	long := strings.Repeat("q", store.MaxQueueNameBytes+1)
	bigPayload := `{"big":"` + strings.Repeat("x", store.MaxPayloadBytes) + `"}`
	for _, c := range []struct {
		queue, payload string
		args           []sqlArg
		want           string
	}{
		{"", `{}`, nil, `queue name '' must be 1 to 128 bytes`},
		{long, `{}`, nil, fmt.Sprintf(`queue name '%s' must be 1 to %d bytes`, long[:64], store.MaxQueueNameBytes)},
		{"q", `{}`, []sqlArg{{"priority", "int", store.MaxPriority + 1}}, fmt.Sprintf(`priority %d is outside %d to %d`, store.MaxPriority+1, store.MinPriority, store.MaxPriority)},
		{"q", `{}`, []sqlArg{{"priority", "int", store.MinPriority - 1}}, fmt.Sprintf(`priority %d is outside`, store.MinPriority-1)},
		{"q", `{}`, []sqlArg{{"max_attempts", "int", store.MaxJobAttempts + 1}}, fmt.Sprintf(`max attempts %d is outside 0 (none) to %d`, store.MaxJobAttempts+1, store.MaxJobAttempts)},
		{"q", `{}`, []sqlArg{{"max_attempts", "int", -1}}, `max attempts -1 is outside`},
		{"q", `{}`, []sqlArg{{"partition_key", "text", strings.Repeat("p", store.MaxPartitionKeyBytes+1)}},
			fmt.Sprintf(`partition key is %d bytes, more than the %d allowed`, store.MaxPartitionKeyBytes+1, store.MaxPartitionKeyBytes)},
		{"q", `{}`, []sqlArg{{"scheduled_at", "timestamptz", "infinity"}}, `scheduled_at infinity is outside the years 1 to 9999`},
		{"q", `{}`, []sqlArg{{"scheduled_at", "timestamptz", store.MinTime.Add(-time.Microsecond)}}, `is outside the years 1 to 9999`},
		{"q", bigPayload, nil, fmt.Sprintf(`payload is %d bytes, more than the %d allowed`, len(bigPayload)+1, store.MaxPayloadBytes)}, // jsonb adds a space
		{"q", `{}`, []sqlArg{{"metadata", "jsonb", `[1]`}}, `metadata must be a JSON object, not array`},
		{"q", `{}`, []sqlArg{{"unique_key", "text", strings.Repeat("k", store.MaxUniqueKeyBytes+1)}}, fmt.Sprintf(`is longer than %d bytes`, store.MaxUniqueKeyBytes)},
		{"q", `{}`, []sqlArg{{"unique_key", "text", "k"}, {"unique_while", "text[]", []string{"failed"}}}, `unique key 'k' covers {failed}`},
		{"q", `{}`, []sqlArg{{"unique_while", "text[]", []string{"completed"}}}, `unique_while without a unique key`},
	} {
		_, err := enqueueSQL(t, s, c.queue, c.payload, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "SQLSTATE 22023") {
			t.Errorf("enqueue(%.20q, %.20s, %v): got %v, want SQLSTATE 22023 saying %q", c.queue, c.payload, c.args, err, c.want)
		}
		if err != nil && !errors.Is(pg.Classify(s, err), store.ErrInvalid) {
			t.Errorf("%v: store/pg does not report it as store.ErrInvalid", err)
		}
	}
	if _, err := s.Pool().Exec(t.Context(), "SELECT "+pgx.Identifier{s.Schema()}.Sanitize()+".enqueue('q', NULL)"); err == nil ||
		!strings.Contains(err.Error(), "payload is NULL") {
		t.Errorf("a NULL payload: got %v", err)
	}
	if n := countJobs(t, s); n != 0 {
		t.Errorf("%d rows after refused enqueues; want none", n)
	}

	atLimits := []sqlArg{{"priority", "int", store.MaxPriority}, {"max_attempts", "int", store.MaxJobAttempts},
		{"partition_key", "text", strings.Repeat("p", store.MaxPartitionKeyBytes)}, {"scheduled_at", "timestamptz", store.MaxTime},
		{"unique_key", "text", strings.Repeat("k", store.MaxUniqueKeyBytes)}}
	payload := `{"big":"` + strings.Repeat("x", store.MaxPayloadBytes-len(`{"big": ""}`)) + `"}`
	if _, err := enqueueSQL(t, s, long[:store.MaxQueueNameBytes], payload, atLimits...); err != nil {
		t.Errorf("a job at every limit: %v", err)
	}
}

// The function notifies the available channel with the queue of a job
// that is available at once, when the caller's transaction commits, and
// not for a scheduled one, as the Go client's insert does.
func TestEnqueueFunctionNotifiesAvailableJobs(t *testing.T) {
	s := pgtest.Open(t, nil)
	listener := connect(t)
	if _, err := listener.Exec(t.Context(), "LISTEN "+pgx.Identifier{s.Schema() + "_available"}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	tx, err := s.Pool().Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(t.Context())
	for _, call := range []struct {
		queue string
		args  []sqlArg
	}{{"later", []sqlArg{{"scheduled_at", "timestamptz", future}}}, {"now", nil}} {
		sql, values := enqueueCall(s.Schema(), call.queue, `{}`, call.args...)
		if _, err := tx.Exec(t.Context(), sql, values...); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	n, err := listener.WaitForNotification(ctx)
	if err != nil || n.Payload != "now" {
		t.Fatalf("got notification %+v, %v; want one for queue now", n, err)
	}
	ctx, cancel = context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if n, err := listener.WaitForNotification(ctx); err == nil {
		t.Errorf("a second notification %+v; want none for the scheduled job", n)
	}
}

// Two transactions call the function with one key at once: the second
// waits for the first, then returns its row's id if it committed, or
// inserts its own if it rolled back; never a second holder, never an
// error.
func TestEnqueueFunctionWaitsForAConcurrentHolder(t *testing.T) {
	for _, commit := range []bool{true, false} {
		s := pgtest.Open(t, nil)
		first, err := s.Pool().Begin(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		sql, values := enqueueCall(s.Schema(), "q", `{}`, sqlArg{"unique_key", "text", "k"})
		var held pgtype.UUID
		if err := first.QueryRow(t.Context(), sql, values...).Scan(&held); err != nil {
			t.Fatal(err)
		}
		type answer struct {
			id  ulid.ULID
			err error
		}
		got := make(chan answer, 1)
		go func() {
			id, err := enqueueSQL(t, s, "q", `{}`, sqlArg{"unique_key", "text", "k"})
			got <- answer{id, err}
		}()
		select {
		case a := <-got:
			t.Fatalf("the second call did not wait for the first transaction: %v, %v", a.id, a.err)
		case <-time.After(200 * time.Millisecond):
		}
		end := first.Rollback
		if commit {
			end = first.Commit
		}
		if err := end(t.Context()); err != nil {
			t.Fatal(err)
		}
		a := <-got
		if a.err != nil || (a.id == ulid.ULID(held.Bytes)) != commit || countJobs(t, s) != 1 {
			t.Errorf("first transaction committed %v: the second call returned %s, %v with %d rows; want the first's id %s only if it committed, and one row",
				commit, a.id, a.err, countJobs(t, s), ulid.ULID(held.Bytes))
		}
	}
}
