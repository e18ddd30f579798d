package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/jobid"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/worker"
)

const jobsUsage = `Usage:
  worker jobs list [-status S] [-queue Q] [-final] [-oldest] [-limit N] [-after ID] [-format table|json] [flags]
  worker jobs show [-format text|json] [flags] ID
  worker jobs retry [flags] ID
  worker jobs cancel [flags] ID
  worker jobs delete [flags] ID
  worker jobs retry|cancel|delete [-queue Q] [-status S] [-older-than AGE] [-text T] [-all]
                                  [-dry-run] [-batch-size N] [flags]
  worker jobs skip [flags] ID
  worker jobs redrive -queue DEAD [flags]

Given filter flags instead of an ID, retry, cancel and delete act on every
job that matches them all, in batches of short transactions; -dry-run
prints the count first and changes nothing, and -all is required to act
on every job. A job the action does not fit (a running job is never
deleted under its worker) is counted as refused, with the reason.

A job ID is the 26-character ULID the commands print, or the same id in the
UUID form the database shows. Run 'worker jobs <command> -help' for the
flags.
`

const jobsCommands = "jobs list, jobs show, jobs retry, jobs cancel, jobs delete, jobs skip or jobs redrive"

// jobsCmd dispatches the jobs subcommands and returns the full command name
// for messages.
func (c *cli) jobsCmd(ctx context.Context, args []string) (string, error) {
	if len(args) == 0 {
		fmt.Fprint(c.stderr, jobsUsage)
		return "jobs", usagef("want %s", jobsCommands)
	}
	switch args[0] {
	case "list":
		return "jobs list", c.jobsListCmd(ctx, args[1:])
	case "show":
		return "jobs show", c.jobsShowCmd(ctx, args[1:])
	case "retry":
		return "jobs retry", c.jobsRetryCmd(ctx, args[1:])
	case "cancel":
		return "jobs cancel", c.jobsCancelCmd(ctx, args[1:])
	case "delete":
		return "jobs delete", c.jobsDeleteCmd(ctx, args[1:])
	case "skip":
		return "jobs skip", c.jobsSkipCmd(ctx, args[1:])
	case "redrive":
		return "jobs redrive", c.jobsRedriveCmd(ctx, args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Fprint(c.stdout, jobsUsage)
		return "jobs", nil
	}
	return "jobs", usagef("unknown jobs command %s: want %s", shown(args[0]), jobsCommands)
}

const jobsRetrySynopsis = `worker jobs retry [flags] ID
       worker jobs retry -queue Q|-status S|-older-than AGE|-text T|-all [-dry-run] [flags]

Starts a new attempt of a failed or lost job, available at once, whatever
its retry count, and prints the new attempt's id. A job of a sequence
(worker.SequenceKey) keeps its place: it runs before the later jobs of its
sequence, which a failed job halts.`

func (c *cli) jobsRetryCmd(ctx context.Context, args []string) error {
	var bulk bulkFlags
	st, id, schema, err := c.jobTarget(ctx, "worker jobs retry", jobsRetrySynopsis, args, nil, &bulk)
	if err != nil {
		return err
	}
	defer st.Close()
	if bulk.given() {
		return c.jobsBulk(ctx, st, worker.BulkRetry, &bulk, schema)
	}
	next, err := worker.NewClient(st, nil).Retry(ctx, id)
	if err != nil {
		return explainStoreError(err, schema)
	}
	fmt.Fprintln(c.stdout, next.ID)
	return nil
}

const jobsCancelSynopsis = `worker jobs cancel [flags] ID
       worker jobs cancel -queue Q|-status S|-older-than AGE|-text T|-all [-dry-run] [flags]

Cancels a scheduled, available or running job. The worker running a
running job cancels its handler's context (at once on the store's
notification, within about 1.2 poll intervals without one), ignores its
result and does not retry it.`

func (c *cli) jobsCancelCmd(ctx context.Context, args []string) error {
	var bulk bulkFlags
	st, id, schema, err := c.jobTarget(ctx, "worker jobs cancel", jobsCancelSynopsis, args, nil, &bulk)
	if err != nil {
		return err
	}
	defer st.Close()
	if bulk.given() {
		return c.jobsBulk(ctx, st, worker.BulkCancel, &bulk, schema)
	}
	var before store.Job
	err = st.InTx(ctx, func(tx store.Tx) error {
		if before, err = tx.GetJob(ctx, id); err != nil {
			return err
		}
		if before.Status.Terminal() {
			return fmt.Errorf("job %s is already %s; only scheduled, available or running jobs can be cancelled", id, before.Status)
		}
		_, err := tx.CancelJob(ctx, id)
		return err
	})
	if err != nil {
		return explainStoreError(fmt.Errorf("cancel job %s: %w", id, err), schema)
	}
	fmt.Fprintf(c.stdout, "job %s cancelled (was %s)\n", id, before.Status)
	return nil
}

const jobsDeleteSynopsis = `worker jobs delete [flags] ID
       worker jobs delete -queue Q|-status S|-older-than AGE|-text T|-all [-dry-run] [flags]

Deletes a job that ended (completed, failed, lost, cancelled or snoozed)
for good, as retention would, at any age. A running or waiting job is
refused (cancel it first), and so is a job retention keeps: one that
halts its sequence (skip or retry it first), that a waiting job waits
for, or that its batch has not counted yet; an attempt that an earlier
attempt of its chain links to goes after that one.`

func (c *cli) jobsDeleteCmd(ctx context.Context, args []string) error {
	var bulk bulkFlags
	st, id, schema, err := c.jobTarget(ctx, "worker jobs delete", jobsDeleteSynopsis, args, nil, &bulk)
	if err != nil {
		return err
	}
	defer st.Close()
	if bulk.given() {
		return c.jobsBulk(ctx, st, worker.BulkDelete, &bulk, schema)
	}
	var gone store.Job
	err = st.InTx(ctx, func(tx store.Tx) (err error) { gone, err = tx.DeleteJob(ctx, id); return err })
	if err != nil {
		return explainStoreError(err, schema)
	}
	fmt.Fprintf(c.stdout, "job %s deleted (was %s)\n", id, gone.Status)
	return nil
}

// jobCommand parses the flags and the one job id of show, retry and
// cancel (register adds a command's own flags; it may be nil) and opens
// the store.
func (c *cli) jobCommand(ctx context.Context, name, synopsis string, args []string, register func(*flag.FlagSet)) (openedStore, ulid.ULID, string, error) {
	return c.jobTarget(ctx, name, synopsis, args, register, nil)
}

// jobTarget is jobCommand for a command that also acts in bulk: with
// filter flags of bulk given and no id, it returns the zero id.
func (c *cli) jobTarget(ctx context.Context, name, synopsis string, args []string, register func(*flag.FlagSet), bulk *bulkFlags) (openedStore, ulid.ULID, string, error) {
	fs, db := c.dbFlagSet(name, synopsis)
	if register != nil {
		register(fs)
	}
	if bulk != nil {
		bulk.register(fs)
	}
	rest, err := c.parseFlags(fs, args)
	if err != nil {
		return nil, ulid.ULID{}, "", err
	}
	if bulk != nil {
		bulk.keepCommandLine(fs)
	}
	var id ulid.ULID
	switch {
	case bulk != nil && bulk.given() && len(rest) > 0:
		return nil, ulid.ULID{}, "", usagef("give one job id or filter flags, not both")
	case bulk != nil && bulk.given():
	case len(rest) != 1 && bulk != nil:
		return nil, ulid.ULID{}, "", usagef("want one job id or a filter (-queue, -status, -older-than, -text, or -all), got %d arguments", len(rest))
	case len(rest) != 1:
		return nil, ulid.ULID{}, "", usagef("want one job id, got %d arguments", len(rest))
	default:
		if id, err = parseJobID(rest[0]); err != nil {
			return nil, ulid.ULID{}, "", err
		}
	}
	open := c.openWriterStore
	if name == "worker jobs show" {
		open = c.openStore
	}
	st, err := open(ctx, db, c.defaultLogger())
	if err != nil {
		return nil, ulid.ULID{}, "", err
	}
	return st, id, db.schema, nil
}

// parseJobID reads a job id given on the command line: a ULID as the
// commands print it, or the same 16 bytes in the UUID form PostgreSQL
// shows (with or without dashes).
func parseJobID(s string) (ulid.ULID, error) {
	if id, ok := jobid.Parse(s); ok {
		return id, nil
	}
	return ulid.ULID{}, usagef("%s is not a job id (a 26-character ULID such as 01J0000000000000000000000A, or a UUID)", shown(s))
}

// explainStoreError adds what a person can do about common store errors.
func explainStoreError(err error, schema string) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("%w (no such job in schema %q)", err, schema)
	case errors.Is(err, pg.ErrNotMigrated):
		return fmt.Errorf("%w (run 'worker migrate -schema %s' first)", err, schema)
	case isUndefinedTable(err):
		return fmt.Errorf("%w (the queue tables do not exist in schema %q: run 'worker migrate -schema %s' first)", err, schema, schema)
	}
	return err
}
