package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/internal/localpg"
)

// world is an environment of fixed variables whose local server answers
// when local is true.
func world(env map[string]string, local bool) localpg.Finder {
	return localpg.Finder{
		Getenv: func(k string) string { return env[k] },
		Probe: func(context.Context, string) error {
			if !local {
				return errors.New("connection refused")
			}
			return nil
		},
	}
}

// A developer's run never restarts PostgreSQL unless asked; CI's does.
func TestRestartOnlyInCIOrOnRequest(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, nil, ""},
		{map[string]string{restartVar: "0"}, nil, ""},
		{map[string]string{"CI": "true"}, nil, defaultRestartPG},
		{map[string]string{restartVar: "1"}, nil, defaultRestartPG},
		{map[string]string{"CI": "true"}, []string{"-restart-pg-cmd", ""}, ""},
		{nil, []string{"-restart-pg-cmd", "my-restart"}, "my-restart"},
	} {
		o, err := parseOptions(c.args, world(c.env, true), io.Discard)
		if err != nil || o.restartPG != c.want {
			t.Errorf("env %v, args %q: restart command %q, %v; want %q", c.env, c.args, o.restartPG, err, c.want)
		}
	}
	if _, err := parseOptions(nil, world(map[string]string{restartVar: "yes please"}, true), io.Discard); err == nil || !strings.Contains(err.Error(), restartVar) {
		t.Errorf("%s=\"yes please\": %v; want an error naming the variable", restartVar, err)
	}
}

// The database is the flag's, else DATABASE_URL, else the local server;
// without one the run fails, or skips outside CI when asked to.
func TestFindDatabase(t *testing.T) {
	for _, c := range []struct {
		env          map[string]string
		local        bool
		args         []string
		want, errSub string
		skip         bool
	}{
		{nil, true, []string{"-database-url", "postgres://flag/db"}, "postgres://flag/db", "", false},
		{map[string]string{"DATABASE_URL": "postgres://env/db"}, true, nil, "postgres://env/db", "", false},
		{nil, true, nil, localpg.DefaultURL, "", false},
		{nil, false, nil, "", "no database", false},
		{nil, false, []string{"-skip-without-database"}, "", "chaos skipped", true},
		{map[string]string{"CI": "1"}, false, []string{"-skip-without-database"}, "", "no database", false},
	} {
		o, err := parseOptions(c.args, world(c.env, c.local), io.Discard)
		var skip skipError
		if o.databaseURL != c.want || errors.As(err, &skip) != c.skip || (c.errSub == "") != (err == nil) ||
			(err != nil && !strings.Contains(err.Error(), c.errSub)) {
			t.Errorf("env %v, local %v, args %q: database %q, error %v; want %q, error containing %q (skip %v)",
				c.env, c.local, c.args, o.databaseURL, err, c.want, c.errSub, c.skip)
		}
	}
}

// The skip is reported on stdout with exit status 0; anything else about
// the database is a command-line mistake (status 2).
func TestSkipExitStatus(t *testing.T) {
	saved := localpg.Default
	t.Cleanup(func() { localpg.Default = saved })
	localpg.Default = world(nil, false)
	var out strings.Builder
	if code := mainCode(context.Background(), []string{"-skip-without-database"}, &out, io.Discard); code != 0 || !strings.Contains(out.String(), "chaos skipped") {
		t.Errorf("-skip-without-database without a database: status %d, output %q", code, out.String())
	}
	if code := mainCode(context.Background(), nil, io.Discard, io.Discard); code != 2 {
		t.Errorf("no database: status %d, want 2", code)
	}
}
