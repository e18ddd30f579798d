package tickworktest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
)

// Want describes the enqueued job a Require function looks for. Zero
// fields match every job. Only jobs that wait to run (scheduled or
// available) count as enqueued: one that ran, or runs now, does not.
type Want struct {
	// Queue is the job's queue.
	Queue string
	// Payload is matched field by field: every field of its JSON encoding
	// must be in the job's payload with an equal value; fields it leaves
	// out match anything. Objects match recursively this way, arrays
	// element by element (same length), other values exactly. Use a map,
	// a struct with omitempty fields, or a json.RawMessage.
	Payload any
	// ScheduledAt is when the job may run, to the microsecond. A job
	// enqueued without worker.WithScheduledAt is scheduled at the store time of its enqueue.
	ScheduledAt time.Time
	// Priorities are to come: a Priority field will match them
	// here, next to the other fields.
}

// RequireEnqueued fails tb unless exactly one job waiting in st matches
// want, and returns it.
func RequireEnqueued(tb testing.TB, st store.Store, want Want) store.Job {
	tb.Helper()
	var job store.Job
	inTx(tb, "RequireEnqueued", st, func(tx store.Tx) { job = RequireEnqueuedTx(tb, tx, want) })
	return job
}

// RequireEnqueuedTx is RequireEnqueued inside tx, which sees the jobs its
// own transaction enqueued before it commits (EnqueueTx).
func RequireEnqueuedTx(tb testing.TB, tx store.Tx, want Want) store.Job {
	tb.Helper()
	matches, all := match(tb, "RequireEnqueued", tx, want)
	switch len(matches) {
	case 1:
		return matches[0]
	case 0:
		tb.Fatalf("tickworktest: RequireEnqueued: no enqueued job matches %s; %s", want, describe(all, nil))
	default:
		tb.Fatalf("tickworktest: RequireEnqueued: %d enqueued jobs match %s, want exactly one; %s", len(matches), want, describe(matches, nil))
	}
	return store.Job{}
}

// RequireNotEnqueued fails tb if a job waiting in st matches want.
func RequireNotEnqueued(tb testing.TB, st store.Store, want Want) {
	tb.Helper()
	inTx(tb, "RequireNotEnqueued", st, func(tx store.Tx) { RequireNotEnqueuedTx(tb, tx, want) })
}

// RequireNotEnqueuedTx is RequireNotEnqueued inside tx.
func RequireNotEnqueuedTx(tb testing.TB, tx store.Tx, want Want) {
	tb.Helper()
	if matches, _ := match(tb, "RequireNotEnqueued", tx, want); len(matches) > 0 {
		tb.Fatalf("tickworktest: RequireNotEnqueued: %d enqueued jobs match %s, want none; matching %s", len(matches), want, describe(matches, nil))
	}
}

// inTx runs check in a transaction of st. A failing check ends the test's
// goroutine inside the transaction; the store rolls it back.
func inTx(tb testing.TB, what string, st store.Store, check func(tx store.Tx)) {
	tb.Helper()
	if err := st.InTx(tb.Context(), func(tx store.Tx) error { check(tx); return nil }); err != nil {
		tb.Fatalf("tickworktest: %s: %v", what, err)
	}
}

// match returns the waiting jobs that match want, and all waiting jobs.
func match(tb testing.TB, what string, tx store.Tx, want Want) (matches, all []store.Job) {
	tb.Helper()
	ctx := tb.Context()
	var wantPayload any
	if want.Payload != nil {
		var err error
		if wantPayload, err = decodeJSON(want.Payload); err != nil {
			tb.Fatalf("tickworktest: %s: Want.Payload %#v: %v", what, want.Payload, err)
		}
	}
	all, err := waiting(ctx, tx)
	if err != nil {
		tb.Fatalf("tickworktest: %s: %v", what, err)
	}
	for _, j := range all {
		if want.matches(j, wantPayload) {
			matches = append(matches, j)
		}
	}
	return matches, all
}

func (w Want) matches(j store.Job, payload any) bool {
	if w.Queue != "" && j.Queue != w.Queue {
		return false
	}
	if !w.ScheduledAt.IsZero() && !j.ScheduledAt.Equal(w.ScheduledAt.Truncate(time.Microsecond)) {
		return false
	}
	if payload == nil {
		return true
	}
	var got any
	return json.Unmarshal(j.Payload, &got) == nil && contains(got, payload)
}

// String says what w looks for, for failure messages.
func (w Want) String() string {
	var parts []string
	if w.Queue != "" {
		parts = append(parts, fmt.Sprintf("queue %q", w.Queue))
	}
	if w.Payload != nil {
		raw, _ := json.Marshal(w.Payload)
		parts = append(parts, "payload with "+string(raw))
	}
	if !w.ScheduledAt.IsZero() {
		parts = append(parts, "scheduled at "+stamp(w.ScheduledAt))
	}
	if len(parts) == 0 {
		return "any job"
	}
	return strings.Join(parts, ", ")
}

// decodeJSON returns v as the generic value its JSON encoding decodes to.
func decodeJSON(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	return out, json.Unmarshal(raw, &out)
}

// contains reports whether got has every field of want with an equal
// value: objects partially and recursively, arrays element by element.
func contains(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			if gv, ok := g[k]; !ok || !contains(gv, wv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !contains(g[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return got == want
	}
}
