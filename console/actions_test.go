package console

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
)

func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func newRequest(t *testing.T, method, url, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return req
}

func TestAPIActionsNeedTheBearerToken(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t, adminToken)
	path := srv.URL + "/api/jobs/" + f.running.String() + "/cancel"
	for name, auth := range map[string]string{"no header": "", "wrong token": "Bearer nope", "not bearer": adminToken} {
		req := newRequest(t, "POST", path, "")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if status, _ := do(t, req); status != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", name, status)
		}
	}
	if st := f.job(t, f.running).Status; st != store.Running {
		t.Fatalf("refused cancels changed the job to %s", st)
	}
	notes, err := f.st.Listen(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	req := newRequest(t, "POST", path, "")
	req.Header.Set("Authorization", "Bearer "+adminToken)
	status, body := do(t, req)
	var a Attempt
	if err := json.Unmarshal([]byte(body), &a); status != http.StatusOK || err != nil || a.Status != store.Cancelled {
		t.Fatalf("cancel with the token: %d %s", status, body)
	}
	if st := f.job(t, f.running).Status; st != store.Cancelled {
		t.Errorf("job is %s after the cancel, want cancelled", st)
	}
	// The console cancels as every client does: the worker running the job
	// hears of it and stops its handler.
	select {
	case n := <-notes:
		if want := (store.Notification{Channel: store.ChannelCancel, Job: f.running}); n != want {
			t.Errorf("notification after the cancel: %+v, want %+v", n, want)
		}
	case <-time.After(10 * time.Second):
		t.Error("no notification within 10 s of cancelling a running job")
	}
	// Cancelling it again is a conflict, not a server error.
	req = newRequest(t, "POST", path, "")
	req.Header.Set("Authorization", "Bearer "+adminToken)
	if status, body := do(t, req); status != http.StatusConflict {
		t.Errorf("second cancel: %d %s, want 409", status, body)
	}
}

func TestReadOnlyConsoleRefusesEveryAction(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t, "")
	req := newRequest(t, "POST", srv.URL+"/api/jobs/"+f.failed.String()+"/retry", "")
	req.Header.Set("Authorization", "Bearer ")
	if status, _ := do(t, req); status != http.StatusForbidden {
		t.Errorf("API retry on a read-only console: %d, want 403", status)
	}
	if status, _ := do(t, newRequest(t, "POST", srv.URL+"/login", "token=")); status != http.StatusForbidden {
		t.Errorf("login on a read-only console: %d, want 403", status)
	}
	if next := f.job(t, f.failed).NextAttemptID; !next.IsZero() {
		t.Errorf("a read-only console retried the job as %s", next)
	}
}

// TestFormActionsNeedSessionAndCSRFToken checks the form path with plain
// HTTP: a wrong login, a session without the form token, a cross-site POST,
// then the accepted retry.
func TestFormActionsNeedSessionAndCSRFToken(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t, adminToken)
	if status, _ := do(t, newRequest(t, "POST", srv.URL+"/login", "token=wrong")); status != http.StatusForbidden {
		t.Errorf("wrong token: login status %d, want 403", status)
	}
	session := login(t, srv.URL)
	retry := func(form url.Values, origin string) int {
		req := newRequest(t, "POST", srv.URL+"/jobs/"+f.failed.String()+"/retry", form.Encode())
		req.AddCookie(session)
		if origin != "" {
			req.Header.Set("Origin", origin)
			req.Header.Set("Sec-Fetch-Site", "cross-site")
		}
		status, _ := do(t, req)
		return status
	}
	if status := retry(url.Values{}, ""); status != http.StatusForbidden {
		t.Errorf("session without the CSRF token: %d, want 403", status)
	}
	if status := retry(url.Values{"csrf": {"0123"}}, ""); status != http.StatusForbidden {
		t.Errorf("session with a wrong CSRF token: %d, want 403", status)
	}
	csrf := url.Values{"csrf": {pageCSRF(t, srv.URL, session)}}
	if status := retry(csrf, "https://evil.example"); status != http.StatusForbidden {
		t.Errorf("cross-site POST with session and token: %d, want 403", status)
	}
	if next := f.job(t, f.failed).NextAttemptID; !next.IsZero() {
		t.Fatalf("retried as %s by a refused request", next)
	}
	if status := retry(csrf, ""); status != http.StatusSeeOther {
		t.Fatalf("retry with session and CSRF token: %d, want 303", status)
	}
	if next := f.job(t, f.failed).NextAttemptID; next.IsZero() {
		t.Error("the accepted retry made no new attempt")
	}
}

// pageCSRF is the form token a logged-in page of the console at base
// carries for session.
func pageCSRF(t *testing.T, base string, session *http.Cookie) string {
	t.Helper()
	req := newRequest(t, "GET", base+"/", "")
	req.AddCookie(session)
	status, body := do(t, req)
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(body)
	if status != http.StatusOK || m == nil {
		t.Fatalf("GET / with a session: %d and no form token\n%.300s", status, body)
	}
	return m[1]
}

// login logs in to the console at base with the admin token, checks the
// session cookie and the redirect, and returns the cookie.
func login(t *testing.T, base string) *http.Cookie {
	t.Helper()
	req := newRequest(t, "POST", base+"/login", url.Values{"token": {adminToken}, "next": {"https://evil.example/"}}.Encode())
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" || len(resp.Cookies()) != 1 {
		t.Fatalf("login: %s to %q with %d cookies, want 303 to / (not off-site) with a session", resp.Status, resp.Header.Get("Location"), len(resp.Cookies()))
	}
	session := resp.Cookies()[0]
	if strings.Contains(session.Value, adminToken) || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode {
		t.Errorf("session cookie %+v: want HttpOnly, SameSite=Strict, not the token itself", session)
	}
	return session
}

// The API deletes an ended job and answers with its last row; a running
// job is refused with 409 and stays.
func TestAPIDelete(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t, adminToken)
	del := func(id string) (int, string) {
		req := newRequest(t, "POST", srv.URL+"/api/jobs/"+id+"/delete", "")
		req.Header.Set("Authorization", "Bearer "+adminToken)
		return do(t, req)
	}
	if status, body := del(f.running.String()); status != http.StatusConflict || !strings.Contains(body, "cancel it first") {
		t.Errorf("delete of a running job: %d %s, want 409 saying to cancel it first", status, body)
	}
	if !f.exists(t, f.running) {
		t.Fatal("a refused delete deleted the running job")
	}
	status, body := del(f.retried.String())
	var a Attempt
	if err := json.Unmarshal([]byte(body), &a); status != http.StatusOK || err != nil || a.ID != f.retried {
		t.Fatalf("delete of an ended job: %d %s", status, body)
	}
	if f.exists(t, f.retried) {
		t.Error("the deleted job is still there")
	}
}
