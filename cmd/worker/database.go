package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
)

// dbTarget is a parsed database URL, named in messages by its parts
// without its password.
type dbTarget struct {
	cfg *pgconn.Config
	// name reads like `database "test" on 127.0.0.1:5432 as user "postgres"`.
	name string
}

// parseDBTarget parses a PostgreSQL URL or key=value string the way the
// store will. A string that does not parse is a usageError that quotes no
// part of it: see pg.ParseConfig.
func parseDBTarget(raw string) (dbTarget, error) {
	cfg, err := pg.ParseConfig(raw)
	if err != nil {
		return dbTarget{}, usagef("-database-url: %v", err)
	}
	c := cfg.ConnConfig.Config
	host := c.Host
	if !strings.HasPrefix(host, "/") {
		host = net.JoinHostPort(host, fmt.Sprint(c.Port))
	}
	return dbTarget{
		cfg:  &c,
		name: fmt.Sprintf("database %q on %s as user %q", c.Database, host, c.User),
	}, nil
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
			return fmt.Errorf("cannot use %s: %s", t.name, reason)
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("%s is unreachable; gave up after %v (-connect-timeout): %v", t.name, budget, err)
		}
		log.Warn("database unreachable; retrying", "target", t.name, "attempt", attempt,
			"retrying_for", left.Round(time.Second).String(), "err", err.Error())
		if err := sleepCtx(ctx, min(backoff.Nominal(attempt-1), left)); err != nil {
			return fmt.Errorf("gave up connecting to %s: %w", t.name, err)
		}
	}
}

func pingOnce(ctx context.Context, t dbTarget) error {
	ctx, cancel := context.WithTimeout(ctx, connectAttemptTimeout)
	defer cancel()
	conn, err := pgconn.ConnectConfig(ctx, t.cfg.Copy())
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

// explainConnectError says in plain words why a connection failed and
// whether retrying could help: an answer from the server is final unless
// it says to come back (starting up, too many connections), and so is a
// host name that does not resolve.
func explainConnectError(err error) (reason string, permanent bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pg.Retryable(err):
			return "", false
		case strings.HasPrefix(pgErr.Code, "28"): // invalid authorization
			return "the server refused the login: " + pgErr.Message + " (check the user and password in the database URL)", true
		}
		return fmt.Sprintf("the server says: %s (SQLSTATE %s)", pgErr.Message, pgErr.Code), true
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

// openWriterStore is openStore for a command that writes rows: it also
// refuses, as run does, a schema this release cannot write safely (not
// migrated yet, damaged, or migrated by a newer release).
func (c *cli) openWriterStore(ctx context.Context, db *dbFlags, log *slog.Logger) (openedStore, error) {
	deadline := time.Now().Add(db.connectTimeout)
	st, err := c.openStore(ctx, db, log)
	if err != nil {
		return nil, err
	}
	// A connection lost during the check (a flaky network) is waited out
	// within -connect-timeout, as at the first connection.
	err = whileUnavailable(ctx, deadline, func() error { return st.CheckMigrated(ctx) }, func(err error) {
		log.Warn("database connection lost while checking the schema; retrying", "err", err.Error())
	})
	if err != nil {
		st.Close()
		return nil, explainStoreError(err, db.schema)
	}
	return st, nil
}

// whileUnavailable calls try until it succeeds or fails with anything but
// the store's unavailability (a connection lost), waiting 200 ms between
// calls and telling retrying of each, until deadline or ctx's end; it
// returns try's last error.
func whileUnavailable(ctx context.Context, deadline time.Time, try func() error, retrying func(error)) error {
	for {
		err := try()
		if err == nil || !errors.Is(err, store.ErrUnavailable) || time.Now().After(deadline) || sleepCtx(ctx, 200*time.Millisecond) != nil {
			return err
		}
		retrying(err)
	}
}

// openStore checks the database flags, waits for the database as
// -connect-timeout allows and opens the store on schema db.schema. Nothing
// it prints holds the URL itself, only the parts dbTarget names.
func (c *cli) openStore(ctx context.Context, db *dbFlags, log *slog.Logger) (openedStore, error) {
	if err := db.validate(); err != nil {
		return nil, err
	}
	target, err := parseDBTarget(db.url)
	if err != nil {
		return nil, err
	}
	if err := pg.ValidateSchema(db.schema); err != nil {
		return nil, usagef("-schema: %v", err)
	}
	opts := pg.Options{Schema: db.schema, Logger: log}
	db.pooler.apply(&opts)
	db.net.apply(&opts)
	budget := db.connectTimeout
	deadline := time.Now().Add(budget)
	for {
		if err := waitForDatabase(ctx, target, budget, log); err != nil {
			return nil, err
		}
		st, err := pg.Open(ctx, db.url, opts)
		if err == nil {
			return st, nil
		}
		err = fmt.Errorf("open the queue in schema %q of %s: %w", db.schema, target.name, err)
		// The connection may drop or stall between the check and the open
		// (a flaky network): that is waited out like an unreachable server.
		if _, permanent := explainConnectError(err); permanent || ctx.Err() != nil || time.Now().After(deadline) {
			return nil, err
		}
		log.Warn("database connection lost while opening the queue; retrying", "target", target.name, "err", err.Error())
		budget = max(time.Until(deadline), 0)
	}
}
