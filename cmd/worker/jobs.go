package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

const jobsUsage = `Usage:
  worker jobs list [-status S] [-queue Q] [-limit N] [-after ID] [flags]
  worker jobs retry [flags] ID
  worker jobs cancel [flags] ID

Run 'worker jobs <command> -help' for the flags.
`

// jobsCmd dispatches the jobs subcommands and returns the full command name
// for messages.
func (c *cli) jobsCmd(ctx context.Context, args []string) (string, error) {
	if len(args) == 0 {
		fmt.Fprint(c.stderr, jobsUsage)
		return "jobs", usagef("want jobs list, jobs retry or jobs cancel")
	}
	switch args[0] {
	case "list":
		return "jobs list", c.jobsListCmd(ctx, args[1:])
	case "retry":
		return "jobs retry", c.jobsRetryCmd(ctx, args[1:])
	case "cancel":
		return "jobs cancel", c.jobsCancelCmd(ctx, args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Fprint(c.stdout, jobsUsage)
		return "jobs", nil
	}
	return "jobs", usagef("unknown jobs command %q: want jobs list, jobs retry or jobs cancel", args[0])
}

const jobsListSynopsis = `worker jobs list [-status S] [-queue Q] [-limit N] [-after ID] [flags]

Prints jobs, oldest first, as a table. Each row is one attempt; a failed
attempt that was retried names its next attempt.`

func (c *cli) jobsListCmd(ctx context.Context, args []string) error {
	fs, db := c.dbFlagSet("worker jobs list", jobsListSynopsis)
	status := fs.String("status", "", "only jobs in this status: scheduled, available, running, completed, failed, lost or cancelled")
	queue := fs.String("queue", "", "only jobs of this queue")
	limit := fs.Int("limit", 100, "print at most this many jobs")
	after := fs.String("after", "", "only jobs whose id comes after this one (to page)")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	filter := store.JobFilter{Status: store.Status(*status), Queue: *queue, Limit: *limit}
	if *status != "" && !filter.Status.Valid() {
		return usagef("unknown status %q: want scheduled, available, running, completed, failed, lost or cancelled", *status)
	}
	if *limit < 1 {
		return usagef("-limit %d must be at least 1", *limit)
	}
	if *after != "" {
		id, err := parseJobID(*after)
		if err != nil {
			return err
		}
		filter.After = id
	}
	st, err := c.openStore(ctx, db, c.defaultLogger())
	if err != nil {
		return err
	}
	defer st.Close()
	var jobs []store.Job
	err = st.InTx(ctx, func(tx store.Tx) error {
		jobs, err = tx.ListJobs(ctx, filter)
		return err
	})
	if err != nil {
		return explainStoreError(fmt.Errorf("list jobs: %w", err), db.schema)
	}
	if err := printJobs(c.stdout, jobs); err != nil {
		return err
	}
	if len(jobs) == *limit {
		fmt.Fprintf(c.stderr, "(%d jobs shown; there may be more: add -after %s)\n", len(jobs), jobs[len(jobs)-1].ID)
	}
	return nil
}

// printJobs writes jobs as an aligned table.
func printJobs(w io.Writer, jobs []store.Job) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tQUEUE\tSTATUS\tATTEMPT\tCREATED\tSCHEDULED\tNEXT ATTEMPT\tREASON")
	for _, j := range jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", j.ID, j.Queue, j.Status, j.Attempt,
			formatTime(j.CreatedAt), formatTime(j.ScheduledAt), formatID(j.NextAttemptID), shorten(j.FailedReason, 60))
	}
	return tw.Flush()
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func formatID(id ulid.ULID) string {
	if id == (ulid.ULID{}) {
		return "-"
	}
	return id.String()
}

// shorten keeps a table row on one line.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "-"
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

const jobsRetrySynopsis = `worker jobs retry [flags] ID

Starts a new attempt of a failed or lost job, available at once, whatever
its retry count, and prints the new attempt's id.`

func (c *cli) jobsRetryCmd(ctx context.Context, args []string) error {
	st, id, schema, err := c.jobCommand(ctx, "worker jobs retry", jobsRetrySynopsis, args)
	if err != nil {
		return err
	}
	defer st.Close()
	rnd := clockrng.NewRandFromOS()
	var next store.Job
	err = st.InTx(ctx, func(tx store.Tx) error {
		job, err := tx.GetJob(ctx, id)
		if err != nil {
			return err
		}
		if job.Status != store.Failed && job.Status != store.Lost {
			return fmt.Errorf("job %s is %s; only failed or lost jobs can be retried", id, job.Status)
		}
		if job.NextAttemptID != (ulid.ULID{}) {
			return fmt.Errorf("job %s was already retried as job %s", id, job.NextAttemptID)
		}
		now, err := tx.Now(ctx)
		if err != nil {
			return err
		}
		next, err = tx.ScheduleRetry(ctx, id, clockrng.NewULID(now, rnd), 0)
		return err
	})
	if err != nil {
		return explainStoreError(fmt.Errorf("retry job %s: %w", id, err), schema)
	}
	fmt.Fprintln(c.stdout, next.ID)
	return nil
}

const jobsCancelSynopsis = `worker jobs cancel [flags] ID

Cancels a scheduled, available or running job. A running job's handler is
not interrupted, but its result is ignored and it is not retried.`

func (c *cli) jobsCancelCmd(ctx context.Context, args []string) error {
	st, id, schema, err := c.jobCommand(ctx, "worker jobs cancel", jobsCancelSynopsis, args)
	if err != nil {
		return err
	}
	defer st.Close()
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

// jobCommand parses the flags and the one job id of retry and cancel and
// opens the store.
func (c *cli) jobCommand(ctx context.Context, name, synopsis string, args []string) (openedStore, ulid.ULID, string, error) {
	fs, db := c.dbFlagSet(name, synopsis)
	rest, err := parseFlags(fs, args, c.env)
	if err != nil {
		return nil, ulid.ULID{}, "", err
	}
	if len(rest) != 1 {
		return nil, ulid.ULID{}, "", usagef("want one job id, got %d arguments", len(rest))
	}
	id, err := parseJobID(rest[0])
	if err != nil {
		return nil, ulid.ULID{}, "", err
	}
	st, err := c.openStore(ctx, db, c.defaultLogger())
	if err != nil {
		return nil, ulid.ULID{}, "", err
	}
	return st, id, db.schema, nil
}

// explainStoreError adds what a person can do about common store errors.
func explainStoreError(err error, schema string) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("%w (no such job in schema %q)", err, schema)
	case isUndefinedTable(err):
		return fmt.Errorf("%w (the queue tables do not exist in schema %q: run 'worker migrate -schema %s' first)", err, schema, schema)
	}
	return err
}
