package console

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
)

// pausedAllAt is when the store says every queue was paused (zero: not).
func (f *fixture) pausedAllAt(t *testing.T) time.Time {
	t.Helper()
	var at time.Time
	err := f.st.InTx(context.Background(), func(tx store.Tx) (err error) { at, err = tx.PausedAll(context.Background()); return err })
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// overviewPage is the overview's HTML, as a logged-in operator (session
// not nil) or a visitor sees it.
func overviewPage(t *testing.T, base string, session *http.Cookie) string {
	t.Helper()
	req := newRequest(t, "GET", base+"/", "")
	if session != nil {
		req.AddCookie(session)
	}
	status, body := do(t, req)
	if status != http.StatusOK {
		t.Fatalf("GET /: %d", status)
	}
	return body
}

// TestPauseAllByFormAndAPI: the overview offers pause-all to a logged-in
// operator only, the form pauses every queue, the overview (page and JSON)
// shows it, and the API resumes it with the token and not without.
func TestPauseAllByFormAndAPI(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t, adminToken)
	session := login(t, srv.URL)
	if page := overviewPage(t, srv.URL, nil); strings.Contains(page, `data-action="pause-all"`) || !strings.Contains(page, "Every queue runs") {
		t.Errorf("a visitor's overview offers pause-all or misses the state:\n%.400s", page)
	}
	if page := overviewPage(t, srv.URL, session); !strings.Contains(page, `data-action="pause-all"`) {
		t.Errorf("the operator's overview offers no pause-all")
	}
	form := url.Values{"csrf": {pageCSRF(t, srv.URL, session)}}.Encode()
	req := newRequest(t, "POST", srv.URL+"/queues/pause-all", form)
	req.AddCookie(session)
	if status, _ := do(t, req); status != http.StatusSeeOther {
		t.Fatalf("pause-all by form: %d, want 303", status)
	}
	at := f.pausedAllAt(t)
	if at.IsZero() {
		t.Fatal("the accepted pause-all did not pause every queue in the store")
	}
	var o Overview
	getJSON(t, srv.URL+"/api/", &o)
	if o.PausedAllAt == nil || !o.PausedAllAt.Equal(at) || o.PausedAllForSec == nil {
		t.Errorf("overview JSON paused_all_at %v, want %v", o.PausedAllAt, at)
	}
	page := overviewPage(t, srv.URL, session)
	if !strings.Contains(page, "all queues paused for") || !strings.Contains(page, `data-action="resume-all"`) || !strings.Contains(page, "paused (all)") {
		t.Errorf("the operator's overview after pause-all misses the state, a queue's or resume-all")
	}

	api := func(auth string) (int, string) {
		req := newRequest(t, "POST", srv.URL+"/api/queues/resume-all", "")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		return do(t, req)
	}
	if status, _ := api(""); status != http.StatusUnauthorized || f.pausedAllAt(t).IsZero() {
		t.Errorf("API resume-all without the token: %d, paused-all %v; want 401 and still paused", status, f.pausedAllAt(t))
	}
	status, body := api("Bearer " + adminToken)
	var answer PausedAll
	if err := json.Unmarshal([]byte(body), &answer); status != http.StatusOK || err != nil || answer.PausedAllAt != nil {
		t.Fatalf("API resume-all with the token: %d %s", status, body)
	}
	if at := f.pausedAllAt(t); !at.IsZero() {
		t.Errorf("still paused-all at %v after the API resume-all", at)
	}
}
