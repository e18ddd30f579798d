// Command worker is tickwork's production binary: it runs the queue worker
// with the built-in webhook and noop handlers against PostgreSQL, migrates
// the schema, enqueues jobs and lists, retries and cancels them.
//
// Run `worker help` for the commands and `worker <command> -help` for their
// flags. Every flag can also be set through the environment: DATABASE_URL
// for -database-url, TICKWORK_<FLAG> for the others (-drain-timeout is
// TICKWORK_DRAIN_TIMEOUT; TICKWORK_SCHEDULE holds one schedule per line); a
// flag on the command line wins. Numeric flags accept the range their help
// gives.
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
)

func main() {
	ctx, abandon := shutdownSignals()
	c := &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, env: osEnv, environ: os.Environ, abandon: abandon}
	os.Exit(c.main(ctx, os.Args[1:]))
}

// cli is one invocation of the binary, with its outputs and environment
// injected so that tests can run it in-process.
type cli struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	env    lookupEnv
	// environ lists the environment, for warnings about unknown variables.
	environ func() []string
	// abandon is cancelled by a second SIGTERM or SIGINT: run gives up its
	// drain (see shutdownSignals).
	abandon context.Context
}

const topUsage = `worker is the tickwork job-queue worker for PostgreSQL.

Usage:
  worker run [flags]                       process jobs until SIGTERM/SIGINT, then drain
  worker migrate [flags]                   create or upgrade the queue tables
  worker enqueue -queue Q -payload JSON|@FILE|- [-at TIME | -in DURATION] [-priority N] [flags]
                                           add a job and print its id
  worker jobs list [-status S] [-queue Q] [-final] [-format table|json] [flags]
                                           list jobs, newest first
  worker jobs show [flags] ID              one job in full, with all its attempts
  worker jobs retry [flags] ID             start a new attempt of a failed or lost job
  worker jobs cancel [flags] ID            cancel a scheduled, available or running job
  worker jobs delete [flags] ID            delete a job that ended, for good
  worker jobs skip [flags] ID              release the sequence a job that failed for good halts
  worker jobs redrive -queue DEAD [flags]  send the jobs dead-lettered into DEAD back to their queues
  worker queues list [-format table|json] [flags]
                                           each queue's state, limit and jobs by status
  worker queues pause|resume [flags] Q     stop or restart reserving jobs of queue Q
  worker queues pause-all|resume-all [flags]
                                           the same for every queue at once, queues created later too
  worker queues set-limit [flags] Q N|none at most N jobs of Q running across all workers
  worker queues set-rate [flags] Q N/PERIOD|none
                                           at most N jobs of Q starting per PERIOD across all workers
  worker queues set-dead-letter [flags] Q DEAD|none
                                           move the jobs of Q that fail for good to queue DEAD
  worker queues set-history [flags] Q none|keep
                                           none: each completion of a job of Q deletes its row
  worker version                           print the version and build information
  worker console [-addr A] [-admin-token T] [flags]
                                           serve the web console (read-only without a token)
  worker help                              print this message

Run 'worker <command> -help' for the flags of a command. Every flag can also
be set through the environment: DATABASE_URL for -database-url,
TICKWORK_<FLAG> for the others (-drain-timeout is TICKWORK_DRAIN_TIMEOUT;
TICKWORK_SCHEDULE holds one schedule per line); a flag given on the command
line wins. A TICKWORK_ variable no command reads is warned about.

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
	case "queues":
		name, err = c.queuesCmd(ctx, rest)
	case "version", "-version", "--version":
		err = c.versionCmd(rest)
	case "console":
		err = c.consoleCmd(ctx, rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(c.stdout, topUsage)
		return exitOK
	default:
		fmt.Fprintf(c.stderr, "worker: unknown command %s\n\n%s", shown(name), topUsage)
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
		fmt.Fprintf(c.stderr, "worker %s: %s\nRun 'worker %s -help' for usage.\n", command, usage.msg, command)
		return exitUsage
	}
	fmt.Fprintf(c.stderr, "worker %s: %s\n", command, err)
	return exitFailure
}
