package console

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// The job page of a sequence's jobs says which halts it and why, what
// the others wait for, and a skip through the API releases the sequence.
func TestJobPageShowsAHaltedSequence(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	head, next := f.insertTwo(t, func(head, next ulid.ULID) []store.NewJob {
		return []store.NewJob{{ID: head, Queue: "ship", Payload: json.RawMessage(`{}`), SequenceKey: "order-7"},
			{ID: next, Queue: "ship", Payload: json.RawMessage(`{}`), SequenceKey: "order-7"}}
	})
	err := f.st.InTx(ctx, func(tx store.Tx) error { _, err := tx.Reserve(ctx, f.worker, []string{"ship"}, 10); return err })
	if err == nil {
		err = f.st.InTx(ctx, func(tx store.Tx) error { return tx.FailJob(ctx, f.worker, head, "carrier refused") })
	}
	if err != nil {
		t.Fatal(err)
	}
	srv := f.server(t, adminToken)
	var d JobDetail
	getJSON(t, srv.URL+"/api/jobs/"+head.String(), &d)
	if d.Sequence == nil || !d.Sequence.Halts || !d.CanSkip || d.Sequence.Key != "order-7" || d.Sequence.Pos != 1 {
		t.Fatalf("detail of the failed head: sequence %+v, can skip %t", d.Sequence, d.CanSkip)
	}
	d = JobDetail{}
	getJSON(t, srv.URL+"/api/jobs/"+next.String(), &d)
	if s := d.Sequence; s == nil || s.WaitsFor != head || !s.HeadHalts || s.HeadReason != "carrier refused" || d.CanSkip {
		t.Fatalf("detail of the job behind it: sequence %+v, can skip %t", d.Sequence, d.CanSkip)
	}
	status, page := get(t, srv.URL+"/jobs/"+next.String())
	if status != http.StatusOK || !strings.Contains(page, "which halts the sequence: it failed for good (carrier refused)") ||
		!strings.Contains(page, `href="/jobs/`+head.String()+`"`) {
		t.Errorf("the page of the job behind the halted head: %d\n%s", status, page)
	}
	req := newRequest(t, "POST", srv.URL+"/api/jobs/"+head.String()+"/skip", "")
	req.Header.Set("Authorization", "Bearer "+adminToken)
	if status, body := do(t, req); status != http.StatusOK {
		t.Fatalf("skip with the token: %d %s", status, body)
	}
	d = JobDetail{}
	getJSON(t, srv.URL+"/api/jobs/"+next.String(), &d)
	if d.Sequence == nil || !d.Sequence.WaitsFor.IsZero() {
		t.Errorf("after the skip the job still waits: %+v", d.Sequence)
	}
	req = newRequest(t, "POST", srv.URL+"/api/jobs/"+head.String()+"/skip", "")
	req.Header.Set("Authorization", "Bearer "+adminToken)
	if status, body := do(t, req); status != http.StatusConflict {
		t.Errorf("second skip: %d %s, want 409", status, body)
	}
}
