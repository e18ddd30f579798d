package console

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/internal/syncbuf"
	"github.com/tickwork/tickwork/store/pg/pgtest"
	"github.com/tickwork/tickwork/store/storetest"
)

// door is a console with an admin token on an empty schema, its clock
// and what it logged.
type door struct {
	srv   *httptest.Server
	clock *storetest.Clock
	log   *syncbuf.Buffer
}

func newDoor(t *testing.T, opts Options) *door {
	t.Helper()
	d := &door{clock: storetest.NewClock(storetest.Epoch), log: &syncbuf.Buffer{}}
	opts.Store, opts.AdminToken, opts.Now = pgtest.Open(t, nil), adminToken, d.clock.Now
	opts.Logger = slog.New(slog.NewTextHandler(d.log, nil))
	d.srv = serve(t, opts)
	return d
}

// loggedIn reports whether session's cookie opens a logged-in page.
func (d *door) loggedIn(t *testing.T, session *http.Cookie) bool {
	t.Helper()
	req := newRequest(t, "GET", d.srv.URL+"/", "")
	req.AddCookie(session)
	status, body := do(t, req)
	if status != http.StatusOK {
		t.Fatalf("GET / with a session: %d", status)
	}
	return strings.Contains(body, `id="logout"`)
}

// post sends a form with session's cookie and returns the status.
func (d *door) post(t *testing.T, path string, session *http.Cookie, form url.Values) int {
	t.Helper()
	req := newRequest(t, "POST", d.srv.URL+path, form.Encode())
	req.AddCookie(session)
	status, _ := do(t, req)
	return status
}

// TestSessionsAreRandomAndEndAtLogout: two logins are two sessions with
// their own cookie and form token; one's form token does not act for the
// other; after logout the old cookie opens nothing, while the other
// session lives on.
func TestSessionsAreRandomAndEndAtLogout(t *testing.T) {
	d := newDoor(t, Options{})
	a, b := login(t, d.srv.URL), login(t, d.srv.URL)
	if a.Value == b.Value || len(a.Value) < 43 {
		t.Fatalf("two logins gave cookies %d and %d bytes long, equal: %v; want distinct 256-bit values", len(a.Value), len(b.Value), a.Value == b.Value)
	}
	csrfA, csrfB := pageCSRF(t, d.srv.URL, a), pageCSRF(t, d.srv.URL, b)
	if csrfA == csrfB {
		t.Fatal("two sessions share one form token")
	}
	resume := func(session *http.Cookie, csrf string) int {
		return d.post(t, "/queues/resume", session, url.Values{"csrf": {csrf}, "queue": {"email"}})
	}
	if status := resume(b, csrfA); status != http.StatusForbidden {
		t.Errorf("session B with session A's form token: %d, want 403", status)
	}
	if status := resume(a, csrfA); status != http.StatusSeeOther {
		t.Errorf("session A with its own form token: %d, want 303", status)
	}
	if status := d.post(t, "/logout", a, url.Values{"csrf": {csrfB}}); status != http.StatusForbidden {
		t.Errorf("logout of A with B's form token: %d, want 403", status)
	}
	if status := d.post(t, "/logout", a, url.Values{"csrf": {csrfA}}); status != http.StatusSeeOther {
		t.Fatalf("logout: %d, want 303", status)
	}
	if d.loggedIn(t, a) {
		t.Error("the cookie of a logged-out session still opens a logged-in page")
	}
	if status := resume(a, csrfA); status != http.StatusForbidden {
		t.Errorf("action with a logged-out session: %d, want 403", status)
	}
	if !d.loggedIn(t, b) || resume(b, csrfB) != http.StatusSeeOther {
		t.Error("logging out A ended session B too")
	}
	for _, secret := range []string{a.Value, b.Value, csrfA, adminToken} {
		if strings.Contains(d.log.String(), secret) {
			t.Errorf("the log holds a secret:\n%s", d.log)
		}
	}
}

// TestSessionsExpire: a session unused for the idle timeout is refused,
// and so is one used all along once it reaches its maximum age.
func TestSessionsExpire(t *testing.T) {
	d := newDoor(t, Options{SessionIdle: 10 * time.Minute, SessionMax: time.Hour})
	idle := login(t, d.srv.URL)
	d.clock.Advance(10*time.Minute - time.Second)
	if !d.loggedIn(t, idle) {
		t.Fatal("a session used 1 s before its idle timeout is refused")
	}
	d.clock.Advance(10 * time.Minute)
	if d.loggedIn(t, idle) {
		t.Error("a session idle for its whole timeout is still accepted")
	}

	busy := login(t, d.srv.URL)
	csrf := pageCSRF(t, d.srv.URL, busy)
	for range 11 {
		d.clock.Advance(5 * time.Minute)
		if !d.loggedIn(t, busy) {
			t.Fatal("a session used every 5 minutes expired before its maximum age")
		}
	}
	d.clock.Advance(5 * time.Minute)
	if d.loggedIn(t, busy) {
		t.Error("a session used all along is accepted past its maximum age")
	}
	if status := d.post(t, "/queues/pause", busy, url.Values{"csrf": {csrf}, "queue": {"email"}}); status != http.StatusForbidden {
		t.Errorf("action with an expired session: %d, want 403", status)
	}
}

// TestSessionCookieFlags: HttpOnly and SameSite=Strict always, Secure
// when the console is reached over TLS.
func TestSessionCookieFlags(t *testing.T) {
	s, err := New(Options{Store: pgtest.Open(t, nil), AdminToken: adminToken})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(s)
	defer srv.Close()
	req := newRequest(t, "POST", srv.URL+"/login", url.Values{"token": {adminToken}}.Encode())
	c := srv.Client()
	c.CheckRedirect = noRedirect.CheckRedirect
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if cs := resp.Cookies(); len(cs) != 1 || !cs[0].Secure || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode {
		t.Errorf("session cookie over TLS: %+v, want Secure, HttpOnly, SameSite=Strict", cs)
	}
}
