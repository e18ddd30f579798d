package pgtest

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

func TestWithoutDurability(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u@h:5432/db?sslmode=disable": "postgres://u@h:5432/db?sslmode=disable&synchronous_commit=off",
		"postgres://u@h/db":                      "postgres://u@h/db?synchronous_commit=off",
		"host=h dbname=db":                       "host=h dbname=db synchronous_commit=off",
	} {
		if got := withoutDurability(in); got != want {
			t.Errorf("withoutDurability(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSchemaIsFreshAndDropped checks that two calls give different names and
// that the schema a test creates is gone after its clean-up.
func TestSchemaIsFreshAndDropped(t *testing.T) {
	var name string
	t.Run("create", func(t *testing.T) {
		if a, b := Schema(t), Schema(t); a == b || !strings.HasPrefix(a, SchemaPrefix) {
			t.Fatalf("Schema gave %q and %q", a, b)
		}
		name = Open(t, nil).Schema() // Open migrates: the schema exists now
	})
	conn, err := pgx.Connect(context.Background(), URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(t.Context(), "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Fatalf("schema %s still exists after its test ended", name)
	}
}

// recorder stands in for a test so that URL's Fatal and Skip can be seen;
// both end the goroutine, as testing's do.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Fatal(args ...any) { r.fatal = fmt.Sprint(args...); runtime.Goexit() }
func (r *recorder) Skip(args ...any)  { r.skip = fmt.Sprint(args...); runtime.Goexit() }

func urlOutcome(t *testing.T) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		URL(r)
	}()
	<-done
	return r
}

// TestURLWithoutDatabase: no DATABASE_URL and no Docker fails the test in
// CI and skips it elsewhere, saying how to provide a database.
func TestURLWithoutDatabase(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	t.Setenv("CI", "")
	if r := urlOutcome(t); r.skip == "" || r.fatal != "" || !strings.Contains(r.skip, "DATABASE_URL") {
		t.Errorf("outside CI: skip %q, fatal %q; want a skip naming DATABASE_URL", r.skip, r.fatal)
	}
	t.Setenv("CI", "true")
	if r := urlOutcome(t); r.fatal == "" || r.skip != "" || !strings.Contains(r.fatal, "DATABASE_URL") {
		t.Errorf("in CI: skip %q, fatal %q; want a failure naming DATABASE_URL", r.skip, r.fatal)
	}
}
