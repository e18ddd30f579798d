package pgtest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

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

// recorder stands in for a test so that Fatal and Skip can be seen; both
// end the goroutine, as testing's do.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Fatal(args ...any) { r.fatal = fmt.Sprint(args...); runtime.Goexit() }
func (r *recorder) Skip(args ...any)  { r.skip = fmt.Sprint(args...); runtime.Goexit() }

// outcome runs f.url on a recorder and returns the URL it gave, if any.
func outcome(t *testing.T, f finder) (string, *recorder) {
	r := &recorder{TB: t}
	var url string
	done := make(chan struct{})
	go func() {
		defer close(done)
		url = f.url(r)
	}()
	<-done
	return url, r
}

// fake is a finder over a fixed environment: local and container give
// their URL, or fail when it is empty; calls counts the container starts.
func fake(ci, local, container string, calls *int) finder {
	answer := func(url, what string) (string, error) {
		if url == "" {
			return "", errors.New(what + " unavailable")
		}
		return url, nil
	}
	return finder{
		getenv: func(k string) string {
			if k == "CI" {
				return ci
			}
			return ""
		},
		local: func() (string, error) { return answer(local, "local server") },
		container: func() (string, error) {
			*calls++
			return answer(container, "docker")
		},
	}
}

// TestFinderOrder: the local server (DATABASE_URL or the default URL)
// comes first and spares starting a container; the container comes next.
func TestFinderOrder(t *testing.T) {
	calls := 0
	if url, r := outcome(t, fake("", "postgres://local/test", "postgres://docker/test", &calls)); url != "postgres://local/test" || calls != 0 || r.skip+r.fatal != "" {
		t.Errorf("with a local server: %q after %d container starts (skip %q, fatal %q)", url, calls, r.skip, r.fatal)
	}
	if url, r := outcome(t, fake("", "", "postgres://docker/test", &calls)); url != "postgres://docker/test" || calls != 1 || r.skip+r.fatal != "" {
		t.Errorf("without one: %q after %d container starts (skip %q, fatal %q)", url, calls, r.skip, r.fatal)
	}
}

// TestFinderWithoutDatabase: with nothing to be found the test fails in CI
// and is skipped elsewhere, with a message naming what was tried and how
// to provide a database.
func TestFinderWithoutDatabase(t *testing.T) {
	calls := 0
	wants := []string{"local server unavailable", "docker unavailable", "DATABASE_URL", "127.0.0.1:5432"}
	_, r := outcome(t, fake("", "", "", &calls))
	if r.skip == "" || r.fatal != "" {
		t.Errorf("outside CI: skip %q, fatal %q; want a skip", r.skip, r.fatal)
	}
	for _, w := range wants {
		if !strings.Contains(r.skip, w) {
			t.Errorf("the skip message %q does not mention %q", r.skip, w)
		}
	}
	if _, r := outcome(t, fake("true", "", "", &calls)); r.fatal == "" || r.skip != "" || !strings.Contains(r.fatal, "DATABASE_URL") {
		t.Errorf("in CI: skip %q, fatal %q; want a failure naming DATABASE_URL", r.skip, r.fatal)
	}
}

// TestRecyclerSkipsTheTestThatAsked: without a database, Recycler skips
// the test that called it, before any subtest runs. It used to open the
// store from the first subtest with the parent test, whose Skip then ended
// the subtest's goroutine: "test executed panic(nil) or runtime.Goexit".
func TestRecyclerSkipsTheTestThatAsked(t *testing.T) {
	saved := world
	t.Cleanup(func() { world = saved })
	calls := 0
	world = fake("", "", "", &calls)
	var suite *testing.T
	reached := false
	t.Run("suite", func(t *testing.T) {
		suite = t
		open := Recycler(t)
		reached = true
		t.Run("case", func(t *testing.T) { open(t, func() time.Time { return time.Unix(0, 0) }) })
	})
	if reached || !suite.Skipped() {
		t.Fatalf("Recycler without a database: reached the subtests %v, suite skipped %v", reached, suite.Skipped())
	}
}
