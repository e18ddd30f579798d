// Command bench measures tickwork beside River (github.com/riverqueue/river)
// on one PostgreSQL database: same job counts, same concurrency, runs
// alternating between the two, durable commits (the server's
// synchronous_commit, printed). It lives in a module of its own so that
// River never becomes a dependency of tickwork.
//
//	cd bench && go run . compare   # throughput, bulk enqueue, enqueue-to-start
//	cd bench && go run . history   # tickwork's cost as finished rows pile up; retention sweep
//	cd bench && go run . bulk      # workers' ticks during a bulk action over a million rows
//
// Figures are printed, never asserted: a reader compares them with
// RESULTS.md. Every run uses schemas of its own (-schema-prefix), dropped
// afterwards.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// Both signals end the run through ctx, so that its schemas are dropped.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: bench compare|history|bulk [flags] (-help for each)")
		return 2
	}
	var err error
	switch args[0] {
	case "compare":
		err = runCompare(ctx, args[1:], stdout, stderr)
	case "history":
		err = runHistory(ctx, args[1:], stdout, stderr)
	case "bulk":
		err = runBulk(ctx, args[1:], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "bench: unknown command %q: want compare, history or bulk\n", args[0])
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	return 0
}

// commonFlags are the flags every command takes.
type commonFlags struct {
	url    string
	prefix string
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.url, "database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (default $DATABASE_URL)")
	fs.StringVar(&c.prefix, "schema-prefix", "bench_", "prefix of the schemas the run creates and drops")
}

func (c *commonFlags) validate() error {
	if c.url == "" {
		return errors.New("no database: set DATABASE_URL or pass -database-url")
	}
	return nil
}
