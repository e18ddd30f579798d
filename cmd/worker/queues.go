package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

const queuesUsage = `Usage:
  worker queues list [-format table|json] [flags]
  worker queues pause [flags] QUEUE
  worker queues resume [flags] QUEUE
  worker queues pause-all [flags]
  worker queues resume-all [flags]
  worker queues set-limit [flags] QUEUE N|none [-per-key]
  worker queues set-rate [flags] QUEUE N/PERIOD|none
  worker queues set-dead-letter [flags] QUEUE DEAD|none
  worker queues set-history [flags] QUEUE none|keep

A paused queue still takes new jobs, and its running jobs finish, but no
worker reserves a job of it until it is resumed. pause-all does the same
for every queue at once, queues that get jobs later included, until
resume-all; it is one setting, kept apart from each queue's own pause. A limit bounds how many of
a queue's jobs run at once across every worker process; 0 or none removes
it; with -per-key, the limit bounds its jobs with the same partition key
(worker.PartitionKey) instead, together with the queue's limit, and
workers start the jobs of other keys past those of a key at its limit. A
rate bounds how many of its jobs start in any window of PERIOD of
database time across every worker process, e.g. 100/1m, 5/s, 1000/1h30m
(a Go duration, or a unit alone for one of it); none removes it. A
dead-letter queue DEAD receives the queue's jobs that fail for good, kept
failed with the queue they came from ('worker jobs redrive -queue DEAD'
sends them back); none clears it, and a queue cannot dead-letter to
itself. A queue with history none deletes each job's row when it
completes, instead of keeping it completed until retention (a row that
a waiting job, a batch, a schedule, an earlier attempt or a unique key
held while completed still needs is kept); keep, the default, restores
it. All are kept in the database. Run 'worker queues <command> -help' for the flags.
`

const queuesCommands = "queues list, queues pause, queues resume, queues pause-all, queues resume-all, queues set-limit, queues set-rate, queues set-dead-letter or queues set-history"

// queuesCmd dispatches the queues subcommands and returns the full command
// name for messages.
func (c *cli) queuesCmd(ctx context.Context, args []string) (string, error) {
	if len(args) == 0 {
		fmt.Fprint(c.stderr, queuesUsage)
		return "queues", usagef("want %s", queuesCommands)
	}
	switch args[0] {
	case "list":
		return "queues list", c.queuesListCmd(ctx, args[1:])
	case "pause":
		return "queues pause", c.queueControlCmd(ctx, "pause", args[1:])
	case "resume":
		return "queues resume", c.queueControlCmd(ctx, "resume", args[1:])
	case "pause-all", "resume-all":
		return "queues " + args[0], c.queueAllCmd(ctx, args[0], args[1:])
	case "set-limit":
		return "queues set-limit", c.queueControlCmd(ctx, "set-limit", args[1:])
	case "set-rate":
		return "queues set-rate", c.queueControlCmd(ctx, "set-rate", args[1:])
	case "set-dead-letter":
		return "queues set-dead-letter", c.queueControlCmd(ctx, "set-dead-letter", args[1:])
	case "set-history":
		return "queues set-history", c.queueControlCmd(ctx, "set-history", args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Fprint(c.stdout, queuesUsage)
		return "queues", nil
	}
	return "queues", usagef("unknown queues command %s: want %s", shown(args[0]), queuesCommands)
}

// queueControlCmd runs pause, resume, set-limit or set-rate on the queue
// named by the first argument.
func (c *cli) queueControlCmd(ctx context.Context, verb string, args []string) error {
	synopsis := "worker queues " + verb + " [flags] QUEUE"
	want := 1
	switch verb {
	case "set-limit":
		synopsis, want = synopsis+" N|none", 2
	case "set-rate":
		synopsis, want = synopsis+" N/PERIOD|none", 2
	case "set-dead-letter":
		synopsis, want = synopsis+" DEAD|none", 2
	case "set-history":
		synopsis, want = synopsis+" none|keep", 2
	}
	fs, db := c.dbFlagSet("worker queues "+verb, synopsis)
	var perKey bool
	if verb == "set-limit" {
		fs.BoolVar(&perKey, "per-key", false, "bound the jobs of each partition key rather than the queue's")
	}
	rest, err := c.parseTrailingFlags(fs, args, want)
	if err != nil {
		return err
	}
	if len(rest) != want {
		return usagef("want %s (%s), got %d", arguments(want), synopsis, len(rest))
	}
	queue := rest[0]
	if err := names.Check("queue", queue); err != nil {
		return usagef("%v", err)
	}
	limit, period, dead, keep := 0, time.Duration(0), "", true
	switch verb {
	case "set-limit":
		limit, err = parseLimit(rest[1])
	case "set-rate":
		limit, period, err = parseRate(rest[1])
	case "set-dead-letter":
		dead, err = parseDeadLetter(queue, rest[1])
	case "set-history":
		if keep, err = store.ParseHistory(rest[1]); err != nil {
			err = usagef("history %s: want none or keep", shown(rest[1]))
		}
	}
	if err != nil {
		return err
	}
	st, client, err := c.openQueueClient(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	msg := fmt.Sprintf("queue %s paused", shown(queue))
	switch verb {
	case "pause":
		err = client.PauseQueue(ctx, queue)
	case "resume":
		err, msg = client.ResumeQueue(ctx, queue), fmt.Sprintf("queue %s resumed", shown(queue))
	case "set-dead-letter":
		err, msg = client.SetQueueDeadLetter(ctx, queue, dead), fmt.Sprintf("queue %s dead-letters to %s", shown(queue), shown(dead))
		if dead == "" {
			msg = fmt.Sprintf("queue %s has no dead-letter queue", shown(queue))
		}
	case "set-history":
		err, msg = client.SetQueueHistory(ctx, queue, keep), fmt.Sprintf("queue %s keeps the rows of its completed jobs", shown(queue))
		if !keep {
			msg = fmt.Sprintf("queue %s deletes each job's row at its completion (history none)", shown(queue))
		}
	case "set-rate":
		err, msg = client.SetQueueRate(ctx, queue, limit, period), fmt.Sprintf("queue %s limited to %s starts", shown(queue), formatRate(limit, period))
		if limit == 0 {
			msg = fmt.Sprintf("queue %s has no rate", shown(queue))
		}
	default:
		if perKey {
			err, msg = client.SetQueueKeyLimit(ctx, queue, limit), fmt.Sprintf("queue %s limited to %d running jobs per partition key", shown(queue), limit)
			if limit == 0 {
				msg = fmt.Sprintf("queue %s has no per-key limit", shown(queue))
			}
			break
		}
		err, msg = client.SetQueueLimit(ctx, queue, limit), fmt.Sprintf("queue %s limited to %d running jobs", shown(queue), limit)
		if limit == 0 {
			msg = fmt.Sprintf("queue %s has no limit", shown(queue))
		}
	}
	if err != nil {
		return explainStoreError(err, db.schema)
	}
	fmt.Fprintln(c.stdout, msg)
	if verb != "resume" {
		c.noteNoJobOn(ctx, st, "queues "+verb, queue, "; the setting holds for the jobs it gets")
	}
	return nil
}

// queueAllCmd runs pause-all or resume-all.
func (c *cli) queueAllCmd(ctx context.Context, verb string, args []string) error {
	fs, db := c.dbFlagSet("worker queues "+verb, "worker queues "+verb+" [flags]")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	st, client, err := c.openQueueClient(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	err, msg := client.PauseAll(ctx), "every queue paused"
	if verb == "resume-all" {
		err, msg = client.ResumeAll(ctx), "every queue resumed (queues paused on their own stay paused)"
	}
	if err != nil {
		return explainStoreError(err, db.schema)
	}
	fmt.Fprintln(c.stdout, msg)
	return nil
}

// openQueueClient opens the store the queue controls write, and a client
// on it; the caller closes the store.
func (c *cli) openQueueClient(ctx context.Context, db *dbFlags) (openedStore, *worker.Client, error) {
	st, err := c.openWriterStore(ctx, db, c.defaultLogger())
	if err != nil {
		return nil, nil, err
	}
	return st, worker.NewClient(st, nil), nil
}

// noteNoJobOn says on standard error, after what command printed, when
// no job is on queue: a queue setting holds for the jobs it will get
// (setting it ahead is legitimate, as more says), and a redrive of an
// empty queue does nothing, but a mistyped name would otherwise go
// unnoticed.
func (c *cli) noteNoJobOn(ctx context.Context, st openedStore, command, queue, more string) {
	var jobs []store.Job
	err := st.InTx(ctx, func(tx store.Tx) (err error) {
		jobs, err = tx.ListJobs(ctx, store.JobFilter{Queue: queue, Limit: 1})
		return err
	})
	if err == nil && len(jobs) == 0 {
		fmt.Fprintf(c.stderr, "worker %s: no job is on queue %s (a mistyped name?)%s\n", command, shown(queue), more)
	}
}

// parseLimit reads set-limit's N: a count, or 0 or none for no limit.
func parseLimit(s string) (int, error) {
	if s == "none" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > store.MaxQueueLimit {
		return 0, usagef("limit %s: want a number from 0 to %d, or none", shown(s), store.MaxQueueLimit)
	}
	return n, nil
}

// parseDeadLetter reads set-dead-letter's DEAD: a queue other than queue,
// or none for no dead-letter queue ("").
func parseDeadLetter(queue, s string) (string, error) {
	if s == "none" {
		return "", nil
	}
	if err := names.Check("dead-letter queue", s); err != nil {
		return "", usagef("%v", err)
	}
	if s == queue {
		return "", usagef("dead-letter queue %s: a queue cannot dead-letter to itself; want another queue, or none", shown(s))
	}
	return s, nil
}

const queuesListSynopsis = `worker queues list [-format table|json] [flags]

Prints every queue that has jobs, is paused, limited, rate-limited,
dead-letters or keeps no history: its state, its limit, its per-key
limit, its rate, its dead-letter queue, its history (keep or none) and
how many of its jobs are in each status,
read in one query. While every queue is paused (pause-all), a first line
says so, and each queue's state is "paused (all)" unless paused on its
own; in JSON, each queue has "paused_all": true.`

func (c *cli) queuesListCmd(ctx context.Context, args []string) error {
	fs, db := c.dbFlagSet("worker queues list", queuesListSynopsis)
	var format string
	fs.StringVar(&format, "format", "table", "output format: table or json")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	if format != "table" && format != "json" {
		return usagef("-format %s: want table or json", shown(format))
	}
	st, err := c.openStore(ctx, db, c.defaultLogger())
	if err != nil {
		return err
	}
	defer st.Close()
	client := worker.NewClient(st, nil)
	queues, err := client.ListQueues(ctx)
	var pausedAll time.Time
	if err == nil {
		pausedAll, err = client.PausedAll(ctx)
	}
	if err != nil {
		return explainStoreError(err, db.schema)
	}
	if format == "json" {
		return writeJSON(c.stdout, queuesJSON(queues, pausedAll))
	}
	if !pausedAll.IsZero() {
		fmt.Fprintf(c.stdout, "ALL QUEUES PAUSED since %s (worker queues resume-all lifts it)\n", formatTime(pausedAll))
	}
	return printQueues(c.stdout, queues, pausedAll)
}

// listedStatuses are the status columns of queues list, in life-cycle order.
var listedStatuses = store.Statuses()

func printQueues(w io.Writer, queues []store.QueueStats, pausedAll time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "QUEUE\tSTATE\tLIMIT\tPER-KEY\tRATE\tDEAD-LETTER\tHISTORY")
	for _, s := range listedStatuses {
		fmt.Fprintf(tw, "\t%s", s)
	}
	fmt.Fprintln(tw)
	for _, q := range queues {
		state, limit, perKey, rate, dead := "active", "-", "-", "-", "-"
		switch {
		case !q.PausedAt.IsZero():
			state = "paused since " + formatTime(q.PausedAt)
		case !pausedAll.IsZero():
			state = "paused (all)"
		}
		if q.Limit > 0 {
			limit = strconv.Itoa(q.Limit)
		}
		if q.KeyLimit > 0 {
			perKey = strconv.Itoa(q.KeyLimit)
		}
		if q.Rate > 0 {
			rate = formatRate(q.Rate, q.RatePeriod)
		}
		if q.DeadLetter != "" {
			dead = truncate(cell(q.DeadLetter), 40)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s", truncate(cell(q.Name), 40), state, limit, perKey, rate, dead, q.History())
		for _, s := range listedStatuses {
			fmt.Fprintf(tw, "\t%d", q.Counts[s])
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// queueJSON is one queue as queues list -format json prints it.
type queueJSON struct {
	Name   string `json:"name"`
	Paused bool   `json:"paused"`
	// PausedAll: every queue is paused (pause-all), this one too.
	PausedAll bool   `json:"paused_all,omitempty"`
	PausedAt  string `json:"paused_at,omitempty"`
	Limit     int    `json:"limit,omitempty"`
	KeyLimit  int    `json:"per_key_limit,omitempty"`
	// Rate is the most starts in any window of RatePeriodSeconds.
	Rate              int                  `json:"rate,omitempty"`
	RatePeriodSeconds float64              `json:"rate_period_seconds,omitempty"`
	DeadLetter        string               `json:"dead_letter,omitempty"`
	History           string               `json:"history"` // keep or none
	Counts            map[store.Status]int `json:"counts"`
}

func queuesJSON(queues []store.QueueStats, pausedAll time.Time) []queueJSON {
	out := make([]queueJSON, len(queues))
	for i, q := range queues {
		out[i] = queueJSON{Name: q.Name, Paused: !q.PausedAt.IsZero(), PausedAll: !pausedAll.IsZero(), Limit: q.Limit, KeyLimit: q.KeyLimit, Rate: q.Rate,
			RatePeriodSeconds: q.RatePeriod.Seconds(), DeadLetter: q.DeadLetter, History: q.History(), Counts: q.Counts}
		if out[i].Paused {
			out[i].PausedAt = formatTime(q.PausedAt)
		}
	}
	return out
}

// parseTrailingFlags parses flags before and after the want arguments, so
// that "worker queues set-limit Q 3 -per-key" reads as the issue writes
// it: the flag package stops at the first argument.
func (c *cli) parseTrailingFlags(fs *flag.FlagSet, args []string, want int) ([]string, error) {
	rest, err := c.parseFlags(fs, args)
	if err != nil || len(rest) <= want {
		return rest, err
	}
	more, err := c.parseFlags(fs, rest[want:])
	return append(rest[:want:want], more...), err
}
