package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

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

const statusNames = "scheduled, available, running, completed, failed, lost, cancelled or snoozed"

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
		return explainStoreError(err, db.schema)
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
	return truncate(cell(strings.Join(strings.Fields(s), " ")), n)
}

// truncate cuts s to n characters, the last an ellipsis when it cuts.
func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// arguments is "1 argument" or "N arguments".
func arguments(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return strconv.Itoa(n) + " arguments"
}
