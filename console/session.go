package console

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sync"
	"time"
)

// A session is what a login makes: a random id in the browser's cookie and,
// here, its form (CSRF) token and its times. The table lives in this
// process's memory: a restart, or changing the admin token (which needs
// one), logs everybody out, and two console processes behind one address
// do not know each other's sessions (route a browser to one of them).

// Session lifetimes when Options leave them zero.
const (
	DefaultSessionIdle = 30 * time.Minute
	DefaultSessionMax  = 12 * time.Hour
)

// maxSessions bounds the table; a login beyond it ends the session that
// was used least recently. Only a holder of the admin token makes one.
const maxSessions = 1000

type session struct {
	csrf              string
	created, lastSeen time.Time
}

// sessions is the table, keyed by the SHA-256 of the id so that the ids
// themselves are kept nowhere but in the browsers.
type sessions struct {
	idle, max time.Duration
	now       func() time.Time

	mu    sync.Mutex
	byKey map[[sha256.Size]byte]*session
}

func newSessions(idle, max time.Duration, now func() time.Time) *sessions {
	return &sessions{idle: idle, max: max, now: now, byKey: map[[sha256.Size]byte]*session{}}
}

// randomToken is 32 bytes from the system's secure generator, base64url.
func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails: the runtime aborts when the system has no entropy to give
	return base64.RawURLEncoding.EncodeToString(b)
}

// start makes a session and returns its id.
func (t *sessions) start() string {
	id := randomToken()
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sweep(now)
	t.byKey[sha256.Sum256([]byte(id))] = &session{csrf: randomToken(), created: now, lastSeen: now}
	return id
}

// touch returns the form token of session id if it is live, and marks it
// used now; ok is false for an unknown, ended or expired id.
func (t *sessions) touch(id string) (csrf string, ok bool) {
	if id == "" {
		return "", false
	}
	key, now := sha256.Sum256([]byte(id)), t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.byKey[key]
	if s == nil {
		return "", false
	}
	if t.expired(s, now) {
		delete(t.byKey, key)
		return "", false
	}
	s.lastSeen = now
	return s.csrf, true
}

// end forgets session id (a logout).
func (t *sessions) end(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byKey, sha256.Sum256([]byte(id)))
}

func (t *sessions) expired(s *session, now time.Time) bool {
	return now.Sub(s.lastSeen) >= t.idle || now.Sub(s.created) >= t.max
}

// sweep drops expired sessions and, when the table is still full, the one
// used least recently. The caller holds mu.
func (t *sessions) sweep(now time.Time) {
	for k, s := range t.byKey {
		if t.expired(s, now) {
			delete(t.byKey, k)
		}
	}
	if len(t.byKey) < maxSessions {
		return
	}
	var oldest [sha256.Size]byte
	var at time.Time
	for k, s := range t.byKey {
		if at.IsZero() || s.lastSeen.Before(at) || (s.lastSeen.Equal(at) && string(k[:]) < string(oldest[:])) {
			oldest, at = k, s.lastSeen
		}
	}
	delete(t.byKey, oldest)
}
