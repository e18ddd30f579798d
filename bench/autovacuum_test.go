package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// fakeServer answers the autovacuum setting's statements as a server
// would and records them, so that the restore logic is tested without
// touching a real server's configuration.
type fakeServer struct {
	value       string
	alterSystem bool
	failOn      string // an Exec containing this fails
	ran         []string
}

func (f *fakeServer) Exec(_ context.Context, sql string, _ ...any) (pgconn.CommandTag, error) {
	f.ran = append(f.ran, sql)
	if f.failOn != "" && strings.Contains(sql, f.failOn) {
		return pgconn.CommandTag{}, errors.New("refused")
	}
	return pgconn.CommandTag{}, nil
}

func (f *fakeServer) QueryRow(_ context.Context, sql string, _ ...any) pgx.Row {
	f.ran = append(f.ran, "read")
	return fakeRow{f}
}

type fakeRow struct{ f *fakeServer }

func (r fakeRow) Scan(dest ...any) error {
	*dest[0].(*string), *dest[1].(*bool) = r.f.value, r.f.alterSystem
	return nil
}

func noWait(context.Context, string) error { return nil }

func TestAutovacuumIsPutBackAsItWas(t *testing.T) {
	for _, c := range []struct {
		name    string
		server  fakeServer
		set     string
		restore string
	}{
		{"from the configuration file", fakeServer{value: "off"}, "on", "ALTER SYSTEM RESET autovacuum"},
		{"from an earlier ALTER SYSTEM", fakeServer{value: "off", alterSystem: true}, "on", "ALTER SYSTEM SET autovacuum = 'off'"},
		{"turned off for the run", fakeServer{value: "on", alterSystem: true}, "off", "ALTER SYSTEM SET autovacuum = 'on'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := c.server
			restore, err := setAutovacuum(t.Context(), &srv, c.set, noWait)
			if err != nil || restore == nil {
				t.Fatalf("set: %v", err)
			}
			if err := restore(t.Context()); err != nil {
				t.Fatal(err)
			}
			want := []string{"read", "ALTER SYSTEM SET autovacuum = " + c.set, "SELECT pg_reload_conf()", c.restore, "SELECT pg_reload_conf()"}
			if strings.Join(srv.ran, "; ") != strings.Join(want, "; ") {
				t.Fatalf("statements:\n got  %q\n want %q", srv.ran, want)
			}
		})
	}
}

// A failure after the ALTER SYSTEM still hands back the restore (the
// caller defers it); a failure before it hands back none, having changed
// nothing; a bad value changes nothing.
func TestAutovacuumRestoreAfterAFailure(t *testing.T) {
	srv := fakeServer{value: "off", failOn: "pg_reload_conf"}
	restore, err := setAutovacuum(t.Context(), &srv, "on", noWait)
	if err == nil || restore == nil {
		t.Fatalf("reload refused: restore %v, err %v; want both", restore != nil, err)
	}
	srv.failOn = ""
	if err := restore(t.Context()); err != nil || srv.ran[len(srv.ran)-2] != "ALTER SYSTEM RESET autovacuum" {
		t.Fatalf("restore: %v after %q", err, srv.ran)
	}
	srv = fakeServer{value: "off", failOn: "ALTER SYSTEM SET"}
	if restore, err := setAutovacuum(t.Context(), &srv, "on", noWait); err == nil || restore != nil {
		t.Fatalf("ALTER SYSTEM refused: restore %v, err %v; want no restore and an error", restore != nil, err)
	}
	srv = fakeServer{value: "off"}
	if _, err := setAutovacuum(t.Context(), &srv, "yes", noWait); err == nil || len(srv.ran) != 0 {
		t.Fatalf("-autovacuum yes: %v after %q", err, srv.ran)
	}
	srv = fakeServer{value: "off", failOn: "RESET"}
	restore, _ = setAutovacuum(t.Context(), &srv, "on", noWait)
	if err := restore(t.Context()); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Fatalf("a failed restore: %v, want an error that says what to run by hand", err)
	}
}
