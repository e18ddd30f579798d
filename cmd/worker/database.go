package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store/pg"
)

// dbTarget is a parsed database URL that can be named in messages without
// revealing its password.
type dbTarget struct {
	raw      string
	password string
	// name reads like `database "test" on 127.0.0.1:5432 as user "postgres"`.
	name string
}

// parseDBTarget parses a PostgreSQL URL or key=value string the way pgx
// will. A string that does not parse is a usageError whose message never
// contains the password.
func parseDBTarget(raw string) (dbTarget, error) {
	cfg, err := pgconn.ParseConfig(raw)
	if err != nil {
		return dbTarget{}, usagef("database URL %s does not parse: %s", redactURL(raw), scrub(err.Error(), passwordOf(raw)))
	}
	host := cfg.Host
	if !strings.HasPrefix(host, "/") {
		host = net.JoinHostPort(host, fmt.Sprint(cfg.Port))
	}
	return dbTarget{
		raw:      raw,
		password: cfg.Password,
		name:     fmt.Sprintf("database %q on %s as user %q", cfg.Database, host, cfg.User),
	}, nil
}

// scrub replaces every occurrence of password in msg: messages from drivers
// and servers are not trusted to leave it out.
func (t dbTarget) scrub(msg string) string { return scrub(msg, t.password) }

func scrub(msg, password string) string { return scrubber(password).Replace(msg) }

// scrubber replaces password, and then its URL-escaped form, with xxxxx; it
// is built once per password because the log writer applies it to every
// line. With no password it changes nothing.
func scrubber(password string) *strings.Replacer {
	if password == "" {
		return strings.NewReplacer()
	}
	pairs := []string{password, "xxxxx"}
	if escaped := url.QueryEscape(password); escaped != password {
		pairs = append(pairs, escaped, "xxxxx")
	}
	return strings.NewReplacer(pairs...)
}

// passwordOf extracts a password from a string that pgx could not parse,
// best effort, so that scrub can still remove it.
func passwordOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			return p
		}
	}
	if m := urlPassword.FindStringSubmatch(raw); m != nil {
		return m[1]
	}
	if m := kvPassword.FindStringSubmatch(raw); m != nil {
		return strings.Trim(m[1], "'")
	}
	return ""
}

var (
	// urlPassword finds the password of a URL that net/url rejects (a bad
	// port, say): scheme://user:password@.
	urlPassword = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://[^:/@]*:([^@/]+)@`)
	kvPassword  = regexp.MustCompile(`password=('[^']*'|\S+)`)
)

// redactURL returns raw with its password replaced by xxxxx, in either URL
// or key=value form.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" {
		q := u.Query()
		if q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return u.Redacted()
	}
	if p := passwordOf(raw); p != "" {
		return strings.ReplaceAll(raw, p, "xxxxx")
	}
	return raw
}

// connectAttemptTimeout bounds one connection attempt, so that a host that
// drops packets is retried rather than waited on for the whole budget.
const connectAttemptTimeout = 5 * time.Second

// waitForDatabase connects to the database once to check that it is
// reachable and that the credentials work. While the database is
// unreachable (refused, timed out, starting up, too many connections) it
// logs a warning and retries with backoff until budget is spent; an error
// that waiting cannot fix (wrong password, unknown database, unknown host)
// returns at once. Every message names the target without its password.
func waitForDatabase(ctx context.Context, t dbTarget, budget time.Duration, log *slog.Logger) error {
	deadline := time.Now().Add(budget)
	backoff := clockrng.Backoff{Base: 200 * time.Millisecond, Factor: 2, Max: 5 * time.Second}
	for attempt := 1; ; attempt++ {
		err := pingOnce(ctx, t)
		if err == nil {
			if attempt > 1 {
				log.Info("database reachable", "target", t.name)
			}
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("gave up connecting to %s: %w", t.name, ctx.Err())
		}
		if reason, permanent := explainConnectError(err); permanent {
			return fmt.Errorf("cannot use %s: %s", t.name, t.scrub(reason))
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("%s is unreachable; gave up after %v (-connect-timeout): %s", t.name, budget, t.scrub(err.Error()))
		}
		log.Warn("database unreachable; retrying", "target", t.name, "attempt", attempt,
			"retrying_for", left.Round(time.Second).String(), "err", t.scrub(err.Error()))
		if err := sleepCtx(ctx, min(backoff.Nominal(attempt-1), left)); err != nil {
			return fmt.Errorf("gave up connecting to %s: %w", t.name, err)
		}
	}
}

func pingOnce(ctx context.Context, t dbTarget) error {
	ctx, cancel := context.WithTimeout(ctx, connectAttemptTimeout)
	defer cancel()
	conn, err := pgconn.Connect(ctx, t.raw)
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

// explainConnectError says in plain words why a connection failed and
// whether retrying could help.
func explainConnectError(err error) (reason string, permanent bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "28"): // invalid authorization
			return "the server refused the login: " + pgErr.Message + " (check the user and password in the database URL)", true
		case pgErr.Code == "3D000": // invalid catalog name
			return "the server says: " + pgErr.Message, true
		}
		return "", false // starting up, too many connections, ...
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return fmt.Sprintf("host %q not found (check the host in the database URL)", dnsErr.Name), true
	}
	return "", false
}

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// isUndefinedTable reports whether err says the queue tables or their
// schema do not exist: the database was never migrated.
func isUndefinedTable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "3F000")
}

// openedStore is the store the commands work on.
type openedStore = *pg.Store

// openStore checks the database flags, waits for the database as
// -connect-timeout allows and opens the store on schema db.schema. From
// here on the password is scrubbed from everything the binary prints.
func (c *cli) openStore(ctx context.Context, db *dbFlags, log *slog.Logger) (openedStore, error) {
	if err := db.validate(); err != nil {
		return nil, err
	}
	// Best effort first, for the error of a URL that does not parse; then
	// the password pgx will send, which can differ (a URL with a password
	// both before the host and in its query sends the latter).
	c.setPassword(passwordOf(db.url))
	target, err := parseDBTarget(db.url)
	if err != nil {
		return nil, err
	}
	c.setPassword(target.password)
	if err := pg.ValidateSchema(db.schema); err != nil {
		return nil, usagef("-schema: %v", err)
	}
	if err := waitForDatabase(ctx, target, db.connectTimeout, log); err != nil {
		return nil, err
	}
	opts := pg.Options{Schema: db.schema, Logger: log}
	db.pooler.apply(&opts)
	st, err := pg.Open(ctx, db.url, opts)
	if err != nil {
		return nil, fmt.Errorf("open the queue in schema %q of %s: %s", db.schema, target.name, target.scrub(err.Error()))
	}
	return st, nil
}
