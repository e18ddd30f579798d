package console

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
)

// queueControls is the queues' rows as the store lists them.
func (f *fixture) queueControls(t *testing.T) map[string]store.Queue {
	t.Helper()
	out := map[string]store.Queue{}
	err := f.st.InTx(context.Background(), func(tx store.Tx) error {
		list, err := tx.ListQueues(context.Background())
		for _, q := range list {
			out[q.Name] = q.Queue
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// overviewQueue is queue's line of the overview's JSON.
func overviewQueue(t *testing.T, srv string, queue string) QueueStats {
	t.Helper()
	var o Overview
	getJSON(t, srv+"/api/", &o)
	for _, q := range o.Queues {
		if q.Queue == queue {
			return q
		}
	}
	t.Fatalf("the overview has no queue %q", queue)
	return QueueStats{}
}

// TestQueuePauseAndResumeByForm pauses a queue through the overview's form
// after the refusals without a session and without the CSRF token, checks
// the store and the overview, and resumes it.
func TestQueuePauseAndResumeByForm(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t, adminToken)
	session := login(t, srv.URL)
	submit := func(action string, form url.Values, withSession bool) int {
		req := newRequest(t, "POST", srv.URL+"/queues/"+action, form.Encode())
		if withSession {
			req.AddCookie(session)
		}
		status, _ := do(t, req)
		return status
	}
	csrf := pageCSRF(t, srv.URL, session)
	if status := submit("pause", url.Values{"queue": {"email"}, "csrf": {csrf}}, false); status != http.StatusForbidden {
		t.Errorf("pause without a session: %d, want 403", status)
	}
	if status := submit("pause", url.Values{"queue": {"email"}}, true); status != http.StatusForbidden {
		t.Errorf("pause without the CSRF token: %d, want 403", status)
	}
	if q, ok := f.queueControls(t)["email"]; ok && q.Controlled() {
		t.Fatalf("a refused pause left queue email as %+v", q)
	}
	if q := overviewQueue(t, srv.URL, "email"); q.PausedAt != nil {
		t.Errorf("the overview shows email paused at %v before any pause", q.PausedAt)
	}

	if status := submit("pause", url.Values{"queue": {"email"}, "csrf": {csrf}}, true); status != http.StatusSeeOther {
		t.Fatalf("pause with session and CSRF token: %d, want 303", status)
	}
	paused := f.queueControls(t)["email"].PausedAt
	if paused.IsZero() {
		t.Fatal("the accepted pause did not pause queue email in the store")
	}
	if q := overviewQueue(t, srv.URL, "email"); q.PausedAt == nil || !q.PausedAt.Equal(paused) || q.PausedForSec == nil {
		t.Errorf("overview line of email %+v, want paused at %v", q, paused)
	}
	if q := overviewQueue(t, srv.URL, "webhook"); q.PausedAt != nil {
		t.Errorf("pausing email shows webhook paused at %v", q.PausedAt)
	}
	if status := submit("stop", url.Values{"queue": {"email"}, "csrf": {csrf}}, true); status != http.StatusNotFound {
		t.Errorf("unknown queue action: %d, want 404", status)
	}
	if status := submit("pause", url.Values{"csrf": {csrf}}, true); status != http.StatusBadRequest {
		t.Errorf("pause without a queue name: %d, want 400", status)
	}

	if status := submit("resume", url.Values{"queue": {"email"}, "csrf": {csrf}}, true); status != http.StatusSeeOther {
		t.Fatalf("resume: %d, want 303", status)
	}
	if q := f.queueControls(t)["email"]; !q.PausedAt.IsZero() {
		t.Errorf("queue email still paused at %v after the resume", q.PausedAt)
	}
}

// TestQueueActionsByAPIAndReadOnly drives the API path with and without the
// bearer token, and checks a read-only console refuses both paths.
func TestQueueActionsByAPIAndReadOnly(t *testing.T) {
	f := newFixture(t)
	ro := f.server(t, "")
	form := url.Values{"queue": {"webhook"}, "csrf": {"x"}}.Encode()
	for _, path := range []string{"/queues/pause", "/api/queues/pause"} {
		req := newRequest(t, "POST", ro.URL+path, form)
		req.Header.Set("Authorization", "Bearer ")
		if status, _ := do(t, req); status != http.StatusForbidden {
			t.Errorf("read-only console, POST %s: %d, want 403", path, status)
		}
	}

	srv := f.server(t, adminToken)
	f.controlQueue(t, func(ctx context.Context, tx store.Tx) error { return tx.SetQueueLimit(ctx, "webhook", 3) })
	f.controlQueue(t, func(ctx context.Context, tx store.Tx) error { return tx.SetQueueRate(ctx, "webhook", 50, time.Minute) })
	f.controlQueue(t, func(ctx context.Context, tx store.Tx) error { return tx.SetQueueKeyLimit(ctx, "webhook", 2) })
	if q := overviewQueue(t, srv.URL, "webhook"); q.Limit != 3 || q.KeyLimit != 2 || q.Rate != 50 || q.RatePeriodSec != 60 {
		t.Errorf("overview line of webhook %+v, want limit 3, per-key limit 2 and rate 50 per 60 s", q)
	}
	api := func(action, auth string) (int, string) {
		req := newRequest(t, "POST", srv.URL+"/api/queues/"+action, url.Values{"queue": {"webhook"}}.Encode())
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		return do(t, req)
	}
	if status, _ := api("pause", ""); status != http.StatusUnauthorized {
		t.Errorf("API pause without the token: %d, want 401", status)
	}
	if q := f.queueControls(t)["webhook"]; !q.PausedAt.IsZero() {
		t.Fatalf("refused pauses paused webhook at %v", q.PausedAt)
	}
	status, body := api("pause", "Bearer "+adminToken)
	var q QueueStats
	if err := json.Unmarshal([]byte(body), &q); status != http.StatusOK || err != nil || q.PausedAt == nil || q.Limit != 3 {
		t.Fatalf("API pause with the token: %d %s", status, body)
	}
	if at := f.queueControls(t)["webhook"].PausedAt; !at.Equal(*q.PausedAt) {
		t.Errorf("store has webhook paused at %v, the answer says %v", at, q.PausedAt)
	}
	status, body = api("resume", "Bearer "+adminToken)
	if err := json.Unmarshal([]byte(body), &q); status != http.StatusOK || err != nil || q.PausedAt != nil {
		t.Fatalf("API resume with the token: %d %s", status, body)
	}
	if at := f.queueControls(t)["webhook"].PausedAt; !at.IsZero() {
		t.Errorf("webhook still paused at %v after the API resume", at)
	}
}
