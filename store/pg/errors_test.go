package pg_test

import (
	"errors"
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

func TestUnparsableURLErrorHidesPassword(t *testing.T) {
	for _, u := range []string{
		"postgres://someone:" + password + "@127.0.0.1:notaport/db",
		"postgres://someone:" + password + "@[::1/db",
		"host=127.0.0.1 port=notaport password=" + password,
		"host=127.0.0.1 port=notaport password='" + password + "'",
	} {
		_, err := pg.Open(t.Context(), u, pg.Options{})
		if err == nil {
			t.Errorf("Open(%q) succeeded", u)
			continue
		}
		wantNamed(t, "unparsable URL", err.Error(), "parse")
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
