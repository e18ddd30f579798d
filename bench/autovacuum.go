package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The history run's -autovacuum: the server's autovacuum set for the run
// with ALTER SYSTEM and pg_reload_conf(), and put back as it was when the
// run ends, however it ends (an error, or SIGINT/SIGTERM, which end the
// run through its context). It changes the whole server, so it is for a
// machine nobody else measures on at the time.

// sqlRunner is the part of a connection the setting needs (a fake in the
// tests, so that they never touch a real server's configuration).
type sqlRunner interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// autovacuumBefore is the setting as the run found it: its value, and
// whether ALTER SYSTEM had set it (postgresql.auto.conf), which decides
// how to put it back.
type autovacuumBefore struct {
	value       string
	alterSystem bool
}

const readAutovacuumSQL = `SELECT setting, coalesce(sourcefile, '') LIKE '%postgresql.auto.conf' FROM pg_settings WHERE name = 'autovacuum'`

// restoreSQL puts the setting back: the earlier ALTER SYSTEM value, or
// none (the configuration files decide again).
func (b autovacuumBefore) restoreSQL() string {
	if b.alterSystem {
		return fmt.Sprintf("ALTER SYSTEM SET autovacuum = %s", pgQuote(b.value))
	}
	return "ALTER SYSTEM RESET autovacuum"
}

// pgQuote quotes a setting's value as an SQL string literal.
func pgQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// setAutovacuum sets the server's autovacuum to value ("on" or "off") and
// returns the function that restores it, which the caller must defer.
// Once the ALTER SYSTEM ran, the restore is returned even with an error.
func setAutovacuum(ctx context.Context, db sqlRunner, value string, wait func(context.Context, string) error) (func(context.Context) error, error) {
	if value != "on" && value != "off" {
		return nil, fmt.Errorf("-autovacuum %q: want on or off", value)
	}
	var before autovacuumBefore
	if err := db.QueryRow(ctx, readAutovacuumSQL).Scan(&before.value, &before.alterSystem); err != nil {
		return nil, fmt.Errorf("read the server's autovacuum: %w", err)
	}
	if _, err := db.Exec(ctx, "ALTER SYSTEM SET autovacuum = "+value); err != nil {
		return nil, fmt.Errorf("set autovacuum = %s: %w", value, err)
	}
	restore := func(ctx context.Context) error {
		_, err := db.Exec(ctx, before.restoreSQL())
		if err == nil {
			_, err = db.Exec(ctx, "SELECT pg_reload_conf()")
		}
		if err == nil {
			err = wait(ctx, before.value)
		}
		if err != nil {
			return fmt.Errorf("restore the server's autovacuum (%s): %w; run %q and SELECT pg_reload_conf() by hand", before.value, err, before.restoreSQL())
		}
		return nil
	}
	if _, err := db.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return restore, fmt.Errorf("reload the configuration: %w", err)
	}
	return restore, wait(ctx, value)
}

// waitSetting waits until new sessions of url see autovacuum = want: the
// postmaster rereads the configuration on its own time.
func waitSetting(url string) func(context.Context, string) error {
	return func(ctx context.Context, want string) error {
		deadline := time.Now().Add(10 * time.Second)
		for {
			got, err := serverSetting(ctx, url, "autovacuum")
			if err != nil || got == want {
				return err
			}
			if time.Now().After(deadline) {
				return errors.New("the server still reports autovacuum = " + got + " 10 s after the reload")
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}
