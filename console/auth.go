package console

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/tickwork/tickwork/internal/format"
)

// A person logs in by typing the admin token once; the console then starts
// a session (session.go): a random id in an HttpOnly, SameSite=Strict
// cookie (Secure over TLS), expiring when idle and at a fixed age, ended by
// logging out. Each form that acts carries the session's own CSRF token.
// A program presents the token as a Bearer header instead, which a
// browser never adds to a cross-site request, so no form token is needed
// there. Failed logins are slowed per client (throttle.go) and logged,
// never with what was typed.

const sessionCookie = "tickwork_console"

// MinAdminToken is the shortest admin token New accepts, in bytes.
const MinAdminToken = 16

// equal compares secrets in constant time (hashing first, so the length
// does not leak either).
func equal(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

// readOnly reports whether no admin token is configured.
func (s *Server) readOnly() bool { return s.opts.AdminToken == "" }

// session returns the session id r's cookie names and its form token, if
// that session is live (which marks it used).
func (s *Server) session(r *http.Request) (id, csrf string, ok bool) {
	if s.readOnly() {
		return "", "", false
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return "", "", false
	}
	csrf, ok = s.sessions.touch(c.Value)
	return c.Value, csrf, ok
}

// loggedIn reports whether r carries the cookie of a live session.
func (s *Server) loggedIn(r *http.Request) bool {
	_, _, ok := s.session(r)
	return ok
}

// csrfToken is the form token of a logged-in page's session; empty
// otherwise.
func (s *Server) csrfToken(r *http.Request) string {
	_, csrf, _ := s.session(r)
	return csrf
}

// bearer reports whether r presents the admin token in its Authorization
// header.
func (s *Server) bearer(r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && !s.readOnly() && equal(tok, s.opts.AdminToken)
}

var errReadOnly = &httpError{http.StatusForbidden, fmt.Errorf("this console is read-only: start it with an admin token to act")}

// checkForm authorizes a form POST: a live session and that session's
// CSRF token in the form.
func (s *Server) checkForm(r *http.Request) error {
	if s.readOnly() {
		return errReadOnly
	}
	_, csrf, ok := s.session(r)
	switch {
	case !ok:
		return &httpError{http.StatusForbidden, fmt.Errorf("log in with the admin token to act (a session ends at logout, after %s idle and after %s)", format.Period(s.opts.SessionIdle), format.Period(s.opts.SessionMax))}
	case !equal(r.PostFormValue("csrf"), csrf):
		return &httpError{http.StatusForbidden, fmt.Errorf("the form's CSRF token is missing or wrong: reload the page and try again")}
	}
	return nil
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, "login", map[string]any{"Next": safeNext(r.URL.Query().Get("next")), "Error": ""})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.PostFormValue("next"))
	if s.readOnly() {
		s.fail(w, r, errReadOnly)
		return
	}
	client := clientOf(r)
	wait, n := s.throttle.attempt(client)
	if wait > 0 {
		secs := int(math.Ceil(wait.Seconds()))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		w.WriteHeader(http.StatusTooManyRequests)
		s.render(w, r, "login", map[string]any{"Next": next, "Error": fmt.Sprintf("Too many failed logins from your address: try again in %d s.", secs)})
		return
	}
	if !equal(r.PostFormValue("token"), s.opts.AdminToken) {
		s.opts.Logger.Warn("console login failed: wrong admin token", "client", client, "attempts", n)
		w.WriteHeader(http.StatusForbidden)
		s.render(w, r, "login", map[string]any{"Next": next, "Error": "That is not the admin token."})
		return
	}
	s.throttle.succeeded(client)
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.sessions.end(c.Value)
	}
	http.SetCookie(w, s.cookie(r, s.sessions.start()))
	s.opts.Logger.Info("console login", "client", client)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout ends the session (its form must carry the session's CSRF token)
// and clears the cookie.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if id, _, ok := s.session(r); ok {
		if err := s.checkForm(r); err != nil {
			s.fail(w, r, err)
			return
		}
		s.sessions.end(id)
	}
	c := s.cookie(r, "")
	c.MaxAge = -1
	http.SetCookie(w, c)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// cookie is the session cookie holding id. It has no expiry of its own:
// the browser drops it when it closes, the console when the session ends.
func (s *Server) cookie(r *http.Request, id string) *http.Cookie {
	return &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil}
}

func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("console: listen on %q: %w", addr, err)
	}
	return ln, nil
}
