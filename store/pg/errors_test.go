package pg_test

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

const password = "Pa55w0rd-that-must-not-show"

// wantNamed fails unless msg names every part and never the password.
func wantNamed(t *testing.T, what, msg string, parts ...string) {
	t.Helper()
	if strings.Contains(msg, password) {
		t.Errorf("%s: the error shows the password: %s", what, msg)
	}
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("%s: the error does not name %q: %s", what, p, msg)
		}
	}
}

func TestUnreachableDatabaseErrorNamesTargetNotPassword(t *testing.T) {
	u := "postgres://someone:" + password + "@127.0.0.1:1/somedb?sslmode=disable&connect_timeout=5"
	_, err := pg.Open(t.Context(), u, pg.Options{Schema: "myschema"})
	if err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Open of a closed port: %v does not wrap ErrUnavailable", err)
	}
	wantNamed(t, "closed port", err.Error(), "host=127.0.0.1", "port=1", "database=somedb", "schema=myschema")
}

// TestUnparsableURLIsNeverQuoted: a connection string that does not parse
// cannot be split reliably into its password and the rest, so no part of
// it may appear in the error, which still says what failed.
func TestUnparsableURLIsNeverQuoted(t *testing.T) {
	for conn, want := range map[string]string{
		"postgres://someone:" + password + "@127.0.0.1:notaport/somedb": "invalid port",
		"postgres://someone:" + password + "@[::1/somedb":               "failed to parse as URL",
		"postgres//someone:" + password + "@somehost/somedb":            "must begin with postgres://",
		"postgresql:/someone:" + password + "@somehost/somedb":          "must begin with postgres://",
		"postgres://someone:pass/" + password + "@somehost/somedb":      "does not parse",
		"host=somehost port=notaport password=" + password:              "invalid port",
		"host=somehost port=notaport password='" + password + "'":       "invalid port",
		"host=somehost sslmode=bogus password=" + password:              "sslmode is invalid",
		"host=somehost password=" + password + " dbname":                "failed to parse as keyword/value",
	} {
		_, err := pg.Open(t.Context(), conn, pg.Options{})
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("Open(%q) = %v, want ErrInvalid", conn, err)
			continue
		}
		wantNamed(t, conn, err.Error(), "does not parse", want)
		for _, part := range []string{"someone", "somehost", "somedb", "pass"} {
			if strings.Contains(err.Error(), part) {
				t.Errorf("Open(%q): the error quotes %q from the connection string: %v", conn, part, err)
			}
		}
	}
}

// TestShortPasswordLeavesErrorsIntact: the password is kept out of errors
// by never printing it, not by deleting its text from messages, which
// with a password of "0" mangled every address and time in them.
func TestShortPasswordLeavesErrorsIntact(t *testing.T) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Skipf("DATABASE_URL is not a URL (%v); this test adds a password to it", err)
	}
	u.User = url.UserPassword(u.User.Username(), "0")
	s, err := pg.Open(t.Context(), u.String(), pg.Options{Schema: "schema_0_never_migrated"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.CheckMigrated(t.Context())
	if err == nil {
		t.Fatal("CheckMigrated on a missing schema succeeded")
	}
	cfg := s.Pool().Config().ConnConfig
	wantNamed(t, "missing schema", err.Error(), "host="+cfg.Host, fmt.Sprintf("port=%d", cfg.Port), "schema=schema_0_never_migrated")
	if strings.Contains(err.Error(), "xxxxx") {
		t.Errorf("the error was scrubbed by substring: %v", err)
	}
}

func TestInvalidSchemaName(t *testing.T) {
	for _, name := range []string{"Upper", "1abc", "pg_mine", "semi;colon", "quote\"d", strings.Repeat("a", pg.MaxSchemaBytes+1)} {
		_, err := pg.Open(t.Context(), pgtest.URL(t), pg.Options{Schema: name})
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("Open with schema %q: %v, want ErrInvalid", name, err)
		}
	}
}

// TestMissingSchemaErrorNamesTarget uses a URL with a password (trust
// authentication ignores it) against a schema nobody migrated.
func TestMissingSchemaErrorNamesTarget(t *testing.T) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Skipf("DATABASE_URL is not a URL (%v); this test adds a password to it", err)
	}
	u.User = url.UserPassword(u.User.Username(), password)
	schema := pgtest.Schema(t)
	s, err := pg.Open(t.Context(), u.String(), pg.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cfg := s.Pool().Config().ConnConfig
	parts := []string{"host=" + cfg.Host, "database=" + cfg.Database, "schema=" + schema, "not migrated"}
	err = s.InTx(t.Context(), func(tx store.Tx) error {
		_, err := tx.ListWorkers(t.Context())
		return err
	})
	if err == nil {
		t.Fatal("ListWorkers on a missing schema succeeded")
	}
	wantNamed(t, "missing schema", err.Error(), parts...)
	err = s.CheckMigrated(t.Context())
	if err == nil {
		t.Fatal("CheckMigrated on a missing schema succeeded")
	}
	wantNamed(t, "CheckMigrated", err.Error(), parts...)
}

func TestUnknownDatabaseErrorNamesIt(t *testing.T) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Skipf("DATABASE_URL is not a URL (%v)", err)
	}
	u.Path = "/no_such_database_tickwork"
	u.User = url.UserPassword(u.User.Username(), password)
	_, err = pg.Open(t.Context(), u.String(), pg.Options{})
	if err == nil {
		t.Fatal("Open of a database that does not exist succeeded")
	}
	wantNamed(t, "unknown database", err.Error(), "database=no_such_database_tickwork", "schema=tickwork")
}

// TestPermanentStartupErrorIsNotUnavailable: a FATAL answer at startup
// that no retry can change (here an unknown run-time parameter, SQLSTATE
// 42704) is not reported as a transient ErrUnavailable, and Retryable
// says so, so that callers report it at once.
func TestPermanentStartupErrorIsNotUnavailable(t *testing.T) {
	_, err := pg.Open(t.Context(), pg.WithParam(pgtest.URL(t), "no_such_setting_tickwork", "1"), pg.Options{})
	if err == nil || errors.Is(err, store.ErrUnavailable) || pg.Retryable(err) {
		t.Fatalf("Open with an unknown startup parameter = %v, want a permanent error", err)
	}
	wantNamed(t, "unknown parameter", err.Error(), `unrecognized configuration parameter "no_such_setting_tickwork"`, "42704")
	if _, err := pg.Open(t.Context(), "postgres://someone@127.0.0.1:1/somedb?sslmode=disable", pg.Options{}); !pg.Retryable(err) {
		t.Errorf("Retryable(%v) = false for a refused connection", err)
	}
}
