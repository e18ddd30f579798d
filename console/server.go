// Package console is tickwork's operator console: web pages, each backed by
// a JSON endpoint, showing the queues, the workers and the jobs of one
// schema, with retry and cancel of jobs and pause and resume of queues for
// an operator who holds the admin token, and the queues' depths on /metrics. Every asset is embedded and the pages run no script; charts are
// SVG drawn on the server.
//
// It reads PostgreSQL through the store's own methods where they exist and
// its own read-only queries (counts, throughput, newest-first pages) in one
// REPEATABLE READ snapshot per page.
package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/jobid"
	"github.com/tickwork/tickwork/internal/redact"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
)

// Options configure a Server.
type Options struct {
	Store *pg.Store
	// AdminToken enables the actions for whoever presents it (a login form
	// for people, an Authorization: Bearer header for programs). Empty
	// means read-only.
	AdminToken string
	// Window is the span of the throughput chart; 0 means 10 minutes.
	Window time.Duration
	// DeadThreshold marks a live worker unresponsive when its heartbeat is
	// older; 0 means 2 minutes, the worker's default.
	DeadThreshold time.Duration
	// MetricsTTL is how long /metrics reuses its reading of the queues;
	// 0 means 15 seconds.
	MetricsTTL time.Duration
	// AllowedHosts are the host names served besides IP addresses,
	// localhost and names under .localhost (origin.go): a request naming
	// another host is refused.
	AllowedHosts []string
	// SessionIdle ends a login session unused this long, SessionMax one
	// this old; 0 means DefaultSessionIdle and DefaultSessionMax.
	SessionIdle, SessionMax time.Duration
	// Now is the clock of sessions and of the login throttle; nil means
	// time.Now.
	Now func() time.Time
	// QueryTimeout ends any statement of a page that runs longer; 0 means
	// 10 seconds.
	QueryTimeout time.Duration
	// Logger receives failed requests and logins; nil discards them.
	Logger *slog.Logger
}

// Server is the console's HTTP handler.
type Server struct {
	opts     Options
	handler  http.Handler
	jobs     string // the jobs table, schema-qualified and quoted
	hosts    hostNames
	sessions *sessions
	throttle *throttle
	search   *searchGate
}

// New returns the console for opts.Store.
func New(opts Options) (*Server, error) {
	if opts.Store == nil {
		return nil, errors.New("console: no store")
	}
	if n := len(opts.AdminToken); n > 0 && n < MinAdminToken {
		return nil, fmt.Errorf("console: the admin token is %d bytes, too short to resist guessing: use at least %d (for example the output of: openssl rand -hex 16)", n, MinAdminToken)
	}
	hosts, err := newHostNames(opts.AllowedHosts)
	if err != nil {
		return nil, err
	}
	if opts.Window == 0 {
		opts.Window = 10 * time.Minute
	}
	if opts.DeadThreshold == 0 {
		opts.DeadThreshold = 2 * time.Minute
	}
	if opts.MetricsTTL == 0 {
		opts.MetricsTTL = 15 * time.Second
	}
	if opts.SessionIdle == 0 {
		opts.SessionIdle = DefaultSessionIdle
	}
	if opts.SessionMax == 0 {
		opts.SessionMax = DefaultSessionMax
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.QueryTimeout == 0 {
		opts.QueryTimeout = defaultQueryTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, jobs: pgx.Identifier{opts.Store.Schema(), "jobs"}.Sanitize(), hosts: hosts,
		sessions: newSessions(opts.SessionIdle, opts.SessionMax, opts.Now), throttle: newThrottle(opts.Now),
		search: newSearchGate(searchSlots(opts.Store.Pool().Config().MaxConns))}
	mux := http.NewServeMux()
	s.routes(mux)
	// A request for a host name not served is refused first (origin.go).
	// Browsers send Sec-Fetch-Site or Origin: a POST from another site is
	// refused before any handler runs. The form token (auth.go) covers
	// what that cannot see.
	s.handler = securityHeaders(s.checkHost(http.NewCrossOriginProtection().Handler(mux)))
	return s, nil
}

func (s *Server) routes(mux *http.ServeMux) {
	page := func(pattern, name string, load func(*http.Request) (any, error)) {
		mux.HandleFunc("GET "+pattern, func(w http.ResponseWriter, r *http.Request) {
			data, err := load(r)
			if err != nil {
				s.fail(w, r, err)
				return
			}
			s.render(w, r, name, data)
		})
		mux.HandleFunc("GET /api"+strings.TrimSuffix(pattern, "{$}"), func(w http.ResponseWriter, r *http.Request) {
			data, err := load(r)
			if err != nil {
				s.failJSON(w, r, err)
				return
			}
			writeJSON(w, http.StatusOK, data)
		})
	}
	page("/{$}", "overview", func(r *http.Request) (any, error) { return s.overview(r.Context()) })
	page("/workers", "workers", func(r *http.Request) (any, error) { return s.workers(r.Context()) })
	page("/jobs", "jobs", func(r *http.Request) (any, error) {
		q, err := parseJobQuery(r.URL.Query())
		if err != nil {
			return nil, badRequest(err)
		}
		return s.listJobs(r.Context(), q)
	})
	page("/jobs/{id}", "job", func(r *http.Request) (any, error) {
		id, err := pathID(r)
		if err != nil {
			return nil, err
		}
		return s.jobDetail(r.Context(), id)
	})
	mux.HandleFunc("GET /api/jobs/{id}/{doc}", s.jobDocument)
	mux.Handle("GET /metrics", s.metricsHandler())
	mux.HandleFunc("GET /login", s.loginPage)
	mux.HandleFunc("POST /login", s.login)
	mux.HandleFunc("POST /logout", s.logout)
	mux.HandleFunc("POST /jobs/{id}/{action}", s.formAction)
	mux.HandleFunc("POST /jobs/bulk", s.formBulk)
	mux.HandleFunc("POST /api/jobs/bulk", s.apiBulk)
	mux.HandleFunc("POST /api/jobs/{id}/{action}", s.apiAction)
	mux.HandleFunc("POST /queues/{action}", s.formQueueAction)
	mux.HandleFunc("POST /api/queues/{action}", s.apiQueueAction)
}

// ServeHTTP serves the console.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// sql names the jobs table of the store's schema in statement text.
func (s *Server) sql(text string) string { return strings.ReplaceAll(text, "{jobs}", s.jobs) }

func pathID(r *http.Request) (ulid.ULID, error) {
	id, ok := jobid.Parse(r.PathValue("id")) // a ULID, or the UUID form PostgreSQL shows
	if !ok {
		return ulid.ULID{}, badRequest(fmt.Errorf("%q is not a job id", r.PathValue("id")))
	}
	return id, nil
}

// httpError carries the status a request error maps to.
type httpError struct {
	status int
	err    error
}

func (e *httpError) Error() string { return e.err.Error() }
func (e *httpError) Unwrap() error { return e.err }

func badRequest(err error) error { return &httpError{http.StatusBadRequest, err} }

// statusOf maps an error to its HTTP status and the text a person may see:
// a store failure is logged and shown without its details.
func (s *Server) statusOf(r *http.Request, err error) (int, string) {
	var he *httpError
	switch {
	case errors.As(err, &he):
		return he.status, redact.Text(he.err.Error())
	case errors.Is(err, errNoJob), errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, redact.Text(err.Error())
	case errors.Is(err, store.ErrConflict):
		return http.StatusConflict, redact.Text(err.Error())
	case errors.Is(err, store.ErrInvalid):
		return http.StatusBadRequest, redact.Text(err.Error())
	}
	s.opts.Logger.Error("console request failed", "method", r.Method, "path", redact.Text(r.URL.Path), "err", redact.Text(err.Error()))
	return http.StatusInternalServerError, "the database could not answer; see the console's log"
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := s.statusOf(r, err)
	w.WriteHeader(status)
	s.render(w, r, "error", map[string]any{"Status": status, "Message": msg})
}

func (s *Server) failJSON(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := s.statusOf(r, err)
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // the client went away; nothing to tell it
}

// securityHeaders: no script, nothing from elsewhere, no framing.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// Serve listens on addr and serves h until ctx is done, then shuts down,
// letting requests in progress finish for up to 5 seconds. ready, if not
// nil, receives the address listened on (useful with port 0).
func Serve(ctx context.Context, addr string, h http.Handler, ready func(addr string)) error {
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	ln, err := listen(addr)
	if err != nil {
		return err
	}
	if ready != nil {
		ready(ln.Addr().String())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("console on %s: %w", addr, err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	if errors.Is(<-done, http.ErrServerClosed) && err == nil {
		return nil
	}
	return err
}
