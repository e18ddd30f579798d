// Package localpg finds the PostgreSQL a command or a test should use when
// it was not told: DATABASE_URL when it is set, otherwise the server a
// developer's machine usually runs (DefaultURL) when it answers. The tests'
// harness (store/pg/pgtest) adds a Docker fallback on top of it; the
// commands that need a database (cmd/chaos, cmd/simulate -store pg) use it
// as it is.
package localpg

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultURL is the local server tried when DATABASE_URL is unset:
// PostgreSQL on its default port, user postgres without a password (trust
// authentication), database test.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// probeTimeout bounds how long a silent server can delay the answer.
const probeTimeout = 3 * time.Second

// Finder looks for a database; its fields are the outside world, replaced
// in tests.
type Finder struct {
	Getenv func(string) string
	Probe  func(ctx context.Context, url string) error // nil when url answers
}

// Default reads the process's environment and connects for real.
var Default = Finder{Getenv: os.Getenv, Probe: Probe}

// Find returns DATABASE_URL when it is set (unprobed: a URL given on
// purpose must fail loudly, not be replaced), else DefaultURL when it
// answers, else an error saying what was tried.
func (f Finder) Find(ctx context.Context) (string, error) {
	if url := f.Getenv("DATABASE_URL"); url != "" {
		return url, nil
	}
	if err := f.Probe(ctx, DefaultURL); err != nil {
		return "", fmt.Errorf("DATABASE_URL is unset and %s does not answer: %w", DefaultURL, err)
	}
	return DefaultURL, nil
}

// Probe connects to url and runs one query, within probeTimeout.
func Probe(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "SELECT 1")
	return err
}
