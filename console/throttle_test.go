package console

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store/pg/pgtest"
	"github.com/tickwork/tickwork/store/storetest"
)

// TestGuessingIsSlowed replays the guesser: 300 wrong tokens at once from
// one address. Five are checked (and logged, without what was typed), the
// rest refused with 429 and Retry-After, and so is the right token until
// the wait is over; another address logs in meanwhile; after the wait the
// right token works and clears the record.
func TestGuessingIsSlowed(t *testing.T) {
	d := newDoor(t, Options{})
	s := d.srv.Config.Handler
	try := func(from, token string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "http://127.0.0.1/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.RemoteAddr = from
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec
	}
	guesser, operator := "203.0.113.9:40000", "198.51.100.7:50000"
	counts := map[int]int{}
	for i := range 300 {
		counts[try(guesser, fmt.Sprintf("guess-%06d", i)).Code]++
	}
	if counts[http.StatusForbidden] != loginBurst || counts[http.StatusTooManyRequests] != 300-loginBurst {
		t.Errorf("300 wrong tokens at once: %v, want %d checked (403) and the rest refused (429)", counts, loginBurst)
	}
	rec := try(guesser, adminToken)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" || !strings.Contains(rec.Body.String(), "try again in 1 s") {
		t.Errorf("the right token while waiting: %d, Retry-After %q, want 429 and 1", rec.Code, rec.Header().Get("Retry-After"))
	}
	if rec := try(operator, adminToken); rec.Code != http.StatusSeeOther {
		t.Errorf("the operator, from another address, during the guessing: %d, want 303", rec.Code)
	}
	if rec := try("[2001:db8:1:2::99]:1", "nope-fresh-address"); rec.Code != http.StatusForbidden {
		t.Errorf("a first wrong token from a fresh address: %d, want 403", rec.Code)
	}

	d.clock.Advance(time.Second)
	if rec := try(guesser, adminToken); rec.Code != http.StatusSeeOther {
		t.Fatalf("the right token after the wait: %d, want 303", rec.Code)
	}
	if rec := try(guesser, "nope-after-success"); rec.Code != http.StatusForbidden {
		t.Errorf("a wrong token after a success: %d, want 403 (the record cleared)", rec.Code)
	}

	log := d.log.String()
	if n := strings.Count(log, "console login failed"); n != loginBurst+2 {
		t.Errorf("%d failed logins logged, want %d:\n%s", n, loginBurst+2, log)
	}
	if !strings.Contains(log, "client=203.0.113.9") || !strings.Contains(log, "client=2001:db8:1:2::/64") {
		t.Errorf("the failures do not name their client:\n%s", log)
	}
	for _, secret := range []string{"guess-", "nope-", adminToken} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds what was typed (%q):\n%s", secret, log)
		}
	}
}

// TestGuessingWaitsDoubleUpToAMinute: a guesser that waits out every delay
// gets 1 s, 2 s, 4 s … then one try a minute; quiet for 15 minutes, it
// starts afresh.
func TestGuessingWaitsDoubleUpToAMinute(t *testing.T) {
	clock := storetest.NewClock(storetest.Epoch)
	th := newThrottle(clock.Now)
	var waits []time.Duration
	for range loginBurst - 1 {
		if wait, _ := th.attempt("a"); wait != 0 {
			t.Fatalf("attempt within the burst waits %v", wait)
		}
	}
	for range 10 {
		th.attempt("a")
		wait, _ := th.attempt("a")
		waits = append(waits, wait)
		clock.Advance(wait)
	}
	want := "[1s 2s 4s 8s 16s 32s 1m0s 1m0s 1m0s 1m0s]"
	if got := fmt.Sprint(waits); got != want {
		t.Errorf("waits %s, want %s", got, want)
	}
	clock.Advance(loginForget)
	if wait, n := th.attempt("a"); wait != 0 || n != 1 {
		t.Errorf("after %v quiet: wait %v after %d attempts, want a fresh start", loginForget, wait, n)
	}
}

// TestShortAdminTokenRefused: a token under MinAdminToken bytes is refused
// at start, without being repeated in the error.
func TestShortAdminTokenRefused(t *testing.T) {
	st := pgtest.Open(t, nil)
	for _, tok := range []string{"Zq", "hunter2", "fifteen-bytes!!"} {
		_, err := New(Options{Store: st, AdminToken: tok})
		if err == nil || !strings.Contains(err.Error(), "at least 16") || strings.Contains(err.Error(), tok) {
			t.Errorf("admin token of %d bytes: error %v, want a refusal naming 16 and not the token", len(tok), err)
		}
	}
	if _, err := New(Options{Store: st, AdminToken: strings.Repeat("k", MinAdminToken)}); err != nil {
		t.Errorf("a 16-byte token: %v", err)
	}
}
