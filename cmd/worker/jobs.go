package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

const jobsUsage = `Usage:
  worker jobs list [-status S] [-queue Q] [-final] [-oldest] [-limit N] [-after ID] [-format table|json] [flags]
  worker jobs show [-format text|json] [flags] ID
  worker jobs retry [flags] ID
  worker jobs cancel [flags] ID

A job ID is the 26-character ULID the commands print, or the same id in the
UUID form the database shows. Run 'worker jobs <command> -help' for the
flags.
`

const jobsCommands = "jobs list, jobs show, jobs retry or jobs cancel"

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
	case "help", "-h", "-help", "--help":
		fmt.Fprint(c.stdout, jobsUsage)
		return "jobs", nil
	}
	return "jobs", usagef("unknown jobs command %s: want %s", shown(args[0]), jobsCommands)
}

const jobsListSynopsis = `worker jobs list [-status S] [-queue Q] [-final] [-oldest] [-limit N] [-after ID] [-format table|json] [flags]

Prints jobs, newest first, as a table or as a JSON array. Each row is one
attempt; a failed attempt that was retried names its next attempt. With
-final only the last attempt of each job is shown, so -status failed -final
lists the jobs that failed for good. In the table, a queue name or reason
with control characters is printed quoted, with Go escapes.`

// listFlags are the flags of worker jobs list, besides the database's.
type listFlags struct {
	status string
	queue  string
	limit  int
	after  string
	oldest bool
	final  bool
	format string
}

func (f *listFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.status, "status", "", "only jobs in this status: "+statusNames)
	fs.StringVar(&f.queue, "queue", "", "only jobs of this queue")
	intVar(fs, &f.limit, "limit", 100, 1, 10000, "print at most this many jobs")
	fs.StringVar(&f.after, "after", "", "continue the listing after this job id (the last one printed), to page")
	boolVar(fs, &f.oldest, "oldest", "oldest first instead of newest first")
	boolVar(fs, &f.final, "final", "only the last attempt of each job (no next attempt); with -status failed, the jobs that failed for good")
	fs.StringVar(&f.format, "format", "table", "output format: table or json")
}

const statusNames = "scheduled, available, running, completed, failed, lost or cancelled"

// filter turns the flags into the store's filter, or a usageError.
func (f *listFlags) filter() (store.JobFilter, error) {
	filter := store.JobFilter{Status: store.Status(f.status), Queue: f.queue, Limit: f.limit, NewestFirst: !f.oldest, LastAttempt: f.final}
	if f.status != "" && !filter.Status.Valid() {
		return filter, usagef("unknown status %s: want %s", shown(f.status), statusNames)
	}
	if f.format != "table" && f.format != "json" {
		return filter, usagef("-format %s: want table or json", shown(f.format))
	}
	if f.after != "" {
		id, err := parseJobID(f.after)
		if err != nil {
			return filter, err
		}
		filter.After = id
	}
	return filter, nil
}

func (c *cli) jobsListCmd(ctx context.Context, args []string) error {
	fs, db := c.dbFlagSet("worker jobs list", jobsListSynopsis)
	var f listFlags
	f.register(fs)
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	filter, err := f.filter()
	if err != nil {
		return err
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
	if f.format == "json" {
		err = writeJSON(c.stdout, jobsJSON(jobs))
	} else {
		err = printJobs(c.stdout, jobs)
	}
	if err != nil {
		return err
	}
	if len(jobs) == f.limit {
		fmt.Fprintf(c.stderr, "(%d jobs shown; there may be more: add -after %s)\n", len(jobs), jobs[len(jobs)-1].ID)
	}
	return nil
}

// printJobs writes jobs as an aligned table, one line per job whatever
// its queue name or reason holds.
func printJobs(w io.Writer, jobs []store.Job) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tQUEUE\tSTATUS\tATTEMPT\tCREATED\tSCHEDULED\tNEXT ATTEMPT\tREASON")
	for _, j := range jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", j.ID, cell(j.Queue), j.Status, j.Attempt,
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

// cell is s as one table cell: "-" when empty, and quoted with Go escapes
// when it holds anything but printable characters and spaces (a tab, a
// newline or a terminal escape sequence would break the table, or worse).
func cell(s string) string {
	switch {
	case s == "":
		return "-"
	case strings.ContainsFunc(s, isControl):
		return strconv.QuoteToGraphic(s)
	}
	return s
}

// shorten keeps a reason on one line of at most about n characters.
func shorten(s string, n int) string {
	s = cell(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

const jobsRetrySynopsis = `worker jobs retry [flags] ID

Starts a new attempt of a failed or lost job, available at once, whatever
its retry count, and prints the new attempt's id.`

func (c *cli) jobsRetryCmd(ctx context.Context, args []string) error {
	st, id, schema, err := c.jobCommand(ctx, "worker jobs retry", jobsRetrySynopsis, args, nil)
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
	st, id, schema, err := c.jobCommand(ctx, "worker jobs cancel", jobsCancelSynopsis, args, nil)
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

// jobCommand parses the flags and the one job id of show, retry and
// cancel (register adds a command's own flags; it may be nil) and opens
// the store.
func (c *cli) jobCommand(ctx context.Context, name, synopsis string, args []string, register func(*flag.FlagSet)) (openedStore, ulid.ULID, string, error) {
	fs, db := c.dbFlagSet(name, synopsis)
	if register != nil {
		register(fs)
	}
	rest, err := c.parseFlags(fs, args)
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

// parseJobID reads a job id given on the command line: a ULID as the
// commands print it, or the same 16 bytes in the UUID form PostgreSQL
// shows (with or without dashes).
func parseJobID(s string) (ulid.ULID, error) {
	if id, err := ulid.ParseStrict(s); err == nil {
		return id, nil
	}
	if len(s) >= 32 {
		if u, err := uuid.Parse(s); err == nil {
			return ulid.ULID(u), nil
		}
	}
	return ulid.ULID{}, usagef("%s is not a job id (a 26-character ULID such as 01J0000000000000000000000A, or a UUID)", shown(s))
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
