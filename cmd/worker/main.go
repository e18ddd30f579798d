// Command worker is tickwork's production binary: it runs the queue worker
// with the built-in webhook and noop handlers against PostgreSQL, migrates
// the schema, enqueues jobs and lists, retries and cancels them.
//
// Run `worker help` for the commands and `worker <command> -help` for their
// flags. Every flag can also be set through the environment: DATABASE_URL
// for -database-url, TICKWORK_<FLAG> for the others (-drain-timeout is
// TICKWORK_DRAIN_TIMEOUT); a flag on the command line wins.
//
// Exit status: 0 on success (for run: after a clean drain on SIGTERM or
// SIGINT), 1 when the command failed, 2 for a command-line mistake.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	c := &cli{stdout: os.Stdout, stderr: os.Stderr, env: osEnv, stopSignals: stop}
	code := c.main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// cli is one invocation of the binary, with its outputs and environment
// injected so that tests can run it in-process.
type cli struct {
	stdout io.Writer
	stderr io.Writer
	env    lookupEnv
	// stopSignals restores the default signal handling, so that a second
	// SIGTERM or SIGINT during a drain kills the process at once.
	stopSignals func()
	// scrubber removes the database password, once known (setPassword),
	// from everything written to stdout and stderr; nil before.
	scrubber *strings.Replacer
}

const topUsage = `worker is the tickwork job-queue worker for PostgreSQL.

Usage:
  worker run [flags]                       process jobs until SIGTERM/SIGINT, then drain
  worker migrate [flags]                   create or upgrade the queue tables
  worker enqueue -queue Q -payload JSON [-at TIME] [flags]
                                           add a job and print its id
  worker jobs list [-status S] [-queue Q] [-limit N] [flags]
  worker jobs retry [flags] ID             start a new attempt of a failed or lost job
  worker jobs cancel [flags] ID            cancel a scheduled, available or running job
  worker console [-addr A] [-admin-token T] [flags]
                                           serve the web console (read-only without a token)
  worker help                              print this message

Run 'worker <command> -help' for the flags of a command. Every flag can also
be set through the environment: DATABASE_URL for -database-url,
TICKWORK_<FLAG> for the others (-drain-timeout is TICKWORK_DRAIN_TIMEOUT);
a flag given on the command line wins.

Exit status: 0 success, 1 failure, 2 command-line mistake.
`

// main runs the subcommand named by args[0] and returns the exit status.
func (c *cli) main(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(c.stderr, topUsage)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	var err error
	switch name {
	case "run":
		err = c.runCmd(ctx, rest)
	case "migrate":
		err = c.migrateCmd(ctx, rest)
	case "enqueue":
		err = c.enqueueCmd(ctx, rest)
	case "jobs":
		name, err = c.jobsCmd(ctx, rest)
	case "console":
		err = c.consoleCmd(ctx, rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(c.stdout, topUsage)
		return exitOK
	default:
		fmt.Fprintf(c.stderr, "worker: unknown command %q\n\n%s", name, topUsage)
		return exitUsage
	}
	return c.report(name, err)
}

// report prints err for a person and returns the exit status it maps to.
func (c *cli) report(command string, err error) int {
	var usage *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &usage):
		fmt.Fprintf(c.stderr, "worker %s: %s\nRun 'worker %s -help' for usage.\n", command, c.scrub(usage.msg), command)
		return exitUsage
	}
	fmt.Fprintf(c.stderr, "worker %s: %s\n", command, c.scrub(err.Error()))
	return exitFailure
}

func (c *cli) scrub(s string) string {
	if c.scrubber == nil {
		return s
	}
	return c.scrubber.Replace(s)
}

// setPassword makes the output scrub password from now on.
func (c *cli) setPassword(password string) { c.scrubber = scrubber(password) }

// scrubWriter removes the database password from everything written
// through it. slog writes each record in one call, so a password cannot be
// split across writes.
type scrubWriter struct {
	w io.Writer
	c *cli
}

func (s scrubWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, s.c.scrub(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
