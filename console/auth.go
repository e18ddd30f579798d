package console

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// A person logs in by typing the admin token once; the console then sets a
// session cookie derived from the token (HMAC, so the token itself never
// travels again and changing it ends every session). Each form that acts
// carries a CSRF token derived from the session, and the cookie is
// SameSite=Strict. A program presents the token as a Bearer header instead,
// which a browser never adds to a cross-site request, so no form token is
// needed there.

const sessionCookie = "tickwork_console"

// derive is HMAC-SHA256(token, purpose), hex: the session value ("session")
// and the form token ("csrf").
func (s *Server) derive(purpose string) string {
	m := hmac.New(sha256.New, []byte(s.opts.AdminToken))
	m.Write([]byte(purpose))
	return hex.EncodeToString(m.Sum(nil))
}

// equal compares secrets in constant time (hashing first, so the length
// does not leak either).
func equal(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

// readOnly reports whether no admin token is configured.
func (s *Server) readOnly() bool { return s.opts.AdminToken == "" }

// loggedIn reports whether r carries a valid session cookie.
func (s *Server) loggedIn(r *http.Request) bool {
	if s.readOnly() {
		return false
	}
	c, err := r.Cookie(sessionCookie)
	return err == nil && equal(c.Value, s.derive("session"))
}

// csrfToken is the form token of a logged-in page; empty otherwise.
func (s *Server) csrfToken(r *http.Request) string {
	if !s.loggedIn(r) {
		return ""
	}
	return s.derive("csrf")
}

// bearer reports whether r presents the admin token in its Authorization
// header.
func (s *Server) bearer(r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && !s.readOnly() && equal(tok, s.opts.AdminToken)
}

var errReadOnly = &httpError{http.StatusForbidden, fmt.Errorf("this console is read-only: start it with an admin token to act")}

// checkForm authorizes a form POST: a session and the form's CSRF token.
func (s *Server) checkForm(r *http.Request) error {
	switch {
	case s.readOnly():
		return errReadOnly
	case !s.loggedIn(r):
		return &httpError{http.StatusForbidden, fmt.Errorf("log in with the admin token to act")}
	case !equal(r.PostFormValue("csrf"), s.derive("csrf")):
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
	if !equal(r.PostFormValue("token"), s.opts.AdminToken) {
		w.WriteHeader(http.StatusForbidden)
		s.render(w, r, "login", map[string]any{"Next": next, "Error": "That is not the admin token."})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: s.derive("session"), Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// safeNext keeps a redirect target on this site.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.Contains(next, `\`) {
		return "/"
	}
	return next
}

func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("console: listen on %q: %w", addr, err)
	}
	return ln, nil
}
