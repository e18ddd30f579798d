package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/redact"
	"github.com/tickwork/tickwork/store"
)

const jobsShowSynopsis = `worker jobs show [-format text|json] [flags] ID

Prints one job attempt in full (its reason, payload and metadata, the worker
that ran it) and the job's whole attempt chain: the attempts before it and
the retries after it, each with the worker that ran it. A snoozed row (its
handler asked to run later) is followed by the row that runs then, with the
same attempt number and one more snooze. A waiting job (enqueue -after)
shows the parents it still waits for and their statuses. A member or the
callback of a batch (worker.EnqueueBatch) shows its batch: how many members
ended and how, and the first failed ones; a waiting callback waits for the
rest. ID is the ULID the commands print or the UUID form the database shows.`

// maxChain bounds the attempts shown each way: MaxRetries is at most 100,
// but jobs retried by hand with jobs retry can go on.
const maxChain = 1000

func (c *cli) jobsShowCmd(ctx context.Context, args []string) error {
	format := "text"
	st, id, schema, err := c.jobCommand(ctx, "worker jobs show", jobsShowSynopsis, args, func(fs *flag.FlagSet) {
		fs.StringVar(&format, "format", "text", "output format: text or json")
	})
	if err != nil {
		return err
	}
	defer st.Close()
	if format != "text" && format != "json" {
		return usagef("-format %s: want text or json", shown(format))
	}
	var job store.Job
	var chain []store.Job
	var waits string
	var batch *store.Batch
	err = st.InTx(ctx, func(tx store.Tx) error {
		if job, err = tx.GetJob(ctx, id); err != nil {
			return err
		}
		if chain, err = attemptChain(ctx, tx, job); err != nil {
			return err
		}
		if batch, err = store.JobBatch(ctx, tx, job); err != nil {
			return err
		}
		waits, err = jobWaits(ctx, tx, job)
		if job.Status == store.Waiting && job.CallbackOf != (ulid.ULID{}) {
			waits = batchWait(batch)
		}
		return err
	})
	if err != nil {
		return explainStoreError(fmt.Errorf("show job %s: %w", id, err), schema)
	}
	if format == "json" {
		return writeJSON(c.stdout, struct {
			Job      jobJSON    `json:"job"`
			Waits    string     `json:"waits,omitempty"`
			Batch    *batchJSON `json:"batch_outcome,omitempty"`
			Attempts []jobJSON  `json:"attempts"`
		}{shownJob(job), waits, shownBatch(batch), jobsJSON(chain)})
	}
	return printJob(c.stdout, job, chain, waits, batchField(job, batch))
}

// attemptChain returns every attempt of job's job, oldest first: the ones
// before it (each the row whose next attempt is the one after), job, and
// the retries after it.
func attemptChain(ctx context.Context, tx store.Tx, job store.Job) ([]store.Job, error) {
	chain := []store.Job{job}
	for len(chain) < maxChain {
		prev, err := tx.ListJobs(ctx, store.JobFilter{NextAttempt: chain[len(chain)-1].ID, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(prev) == 0 {
			break
		}
		chain = append(chain, prev[0])
	}
	slices.Reverse(chain)
	for next := job.NextAttemptID; next != (ulid.ULID{}) && len(chain) < 2*maxChain; {
		j, err := tx.GetJob(ctx, next)
		if err != nil {
			return nil, err
		}
		chain = append(chain, j)
		next = j.NextAttemptID
	}
	return chain, nil
}

// printJob writes one attempt in full, then its chain as a table with the
// shown attempt marked.
func printJob(w io.Writer, job store.Job, chain []store.Job, waits, batch string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	field := func(name, value string) { fmt.Fprintf(tw, "%s:\t%s\n", name, value) }
	field("id", fmt.Sprintf("%s (uuid %s)", job.ID, uuid.UUID(job.ID)))
	field("queue", cell(job.Queue))
	field("status", string(job.Status))
	if waits != "" {
		field("waits", waits)
	}
	if batch != "" {
		field("batch", batch)
	}
	field("attempt", strconv.Itoa(job.Attempt))
	if job.MaxAttempts > 0 {
		field("max attempts", strconv.Itoa(job.MaxAttempts))
	}
	field("snoozes", strconv.Itoa(job.Snoozes))
	field("priority", strconv.Itoa(job.Priority))
	field("schedule", cell(job.ScheduleName))
	field("created", preciseTime(job.CreatedAt))
	field("scheduled", preciseTime(job.ScheduledAt))
	field("started", preciseTime(job.StartedAt))
	field("started by", workerOf(job))
	field("completed", preciseTime(job.CompletedAt))
	field("failed", preciseTime(job.FailedAt))
	field("cancelled", preciseTime(job.CancelledAt))
	field("next attempt", formatID(job.NextAttemptID))
	if job.DeadFrom != "" {
		field("dead-lettered from", cell(job.DeadFrom))
	}
	if job.PartitionKey != "" {
		field("partition key", cell(job.PartitionKey))
	}
	if job.Sequence.Key != "" {
		field("sequence", sequenceField(job.Sequence))
	}
	if job.UniqueKey != "" {
		field("unique key", cell(job.UniqueKey))
		field("unique while", job.UniqueStates.String())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	block(w, "reason", redact.Text(job.FailedReason))
	block(w, "payload", shownJSON(job.Payload, job.ID))
	block(w, "metadata", shownJSON(job.Metadata, job.ID))
	if job.Output != nil {
		block(w, "output", shownJSON(job.Output, job.ID))
	}

	fmt.Fprintf(w, "\nattempts (%d, oldest first):\n", len(chain))
	fmt.Fprintln(tw, "\tATTEMPT\tSNOOZES\tID\tSTATUS\tSTARTED BY\tSTARTED\tENDED\tREASON")
	for i, a := range chain {
		mark := ""
		if a.ID == job.ID {
			mark = "->"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", mark, a.Attempt, a.Snoozes, a.ID, a.Status, workerOf(a),
			formatTime(a.StartedAt), formatTime(ended(a)), shorten(redact.Text(chainReason(chain, i)), 60))
	}
	return tw.Flush()
}

// chainReason is what the chain table says of row i: its failed_reason,
// or for a snoozed row how long it snoozed (until the next row's time).
func chainReason(chain []store.Job, i int) string {
	a := chain[i]
	if a.Status != store.Snoozed {
		return a.FailedReason
	}
	if i+1 < len(chain) && chain[i+1].ID == a.NextAttemptID {
		return "snoozed for " + chain[i+1].ScheduledAt.Sub(a.CompletedAt).String()
	}
	return "snoozed"
}

// preciseTime is formatTime to the microsecond the store keeps.
func preciseTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func workerOf(j store.Job) string {
	if j.StartedBy == (ulid.ULID{}) {
		return "-"
	}
	return j.StartedBy.String()
}

// ended is when an attempt reached its terminal status, or zero.
func ended(j store.Job) time.Time {
	for _, t := range []time.Time{j.CompletedAt, j.FailedAt, j.CancelledAt} {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// block writes a multi-line value under its name, indented, with control
// characters other than newlines escaped so that nothing stored in a job
// can drive the terminal.
func block(w io.Writer, name, value string) {
	fmt.Fprintf(w, "%s:\n", name)
	if value == "" {
		fmt.Fprintln(w, "  -")
		return
	}
	for line := range strings.Lines(value) {
		fmt.Fprintf(w, "  %s\n", escapeControls(strings.TrimSuffix(line, "\n")))
	}
}

// escapeControls replaces each rune that is not graphic (and not a space)
// with its Go escape.
func escapeControls(s string) string {
	var b strings.Builder
	for _, r := range s {
		if !isControl(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRuneToGraphic(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// isControl reports whether r would not print as itself: a control or
// format character, or a byte that is not UTF-8.
func isControl(r rune) bool { return !unicode.IsGraphic(r) || r == utf8.RuneError }

// maxShownJSON is the most of a payload, metadata or output document the
// text form of jobs show prints.
const maxShownJSON = 64 << 10

// shownJSON pretty-prints a stored document of job id with its secrets
// hidden, up to maxShownJSON bytes, saying where the whole is when it is
// cut.
func shownJSON(doc json.RawMessage, id ulid.ULID) string {
	s, cut := redact.Pretty(doc, maxShownJSON)
	if cut {
		s += fmt.Sprintf("\n… cut at %d KiB; worker jobs show -format json %s prints the whole", maxShownJSON>>10, id)
	}
	return s
}

// jobJSON is a job row as the JSON outputs print it: store.Job with
// snake_case names and empty fields left out.
type jobJSON struct {
	ID            ulid.ULID       `json:"id"`
	Queue         string          `json:"queue"`
	Payload       json.RawMessage `json:"payload"`
	Metadata      json.RawMessage `json:"metadata,omitempty"`
	Status        store.Status    `json:"status"`
	Attempt       int             `json:"attempt"`
	CreatedAt     time.Time       `json:"created_at,omitzero"`
	ScheduledAt   time.Time       `json:"scheduled_at,omitzero"`
	StartedAt     time.Time       `json:"started_at,omitzero"`
	StartedBy     ulid.ULID       `json:"started_by,omitzero"`
	CompletedAt   time.Time       `json:"completed_at,omitzero"`
	FailedAt      time.Time       `json:"failed_at,omitzero"`
	FailedReason  string          `json:"failed_reason,omitempty"`
	CancelledAt   time.Time       `json:"cancelled_at,omitzero"`
	NextAttemptID ulid.ULID       `json:"next_attempt_id,omitzero"`
	ScheduleName  string          `json:"schedule_name,omitempty"`
	UniqueKey     string          `json:"unique_key,omitempty"`
	UniqueStates  store.StatusSet `json:"unique_states,omitzero"`
	Output        json.RawMessage `json:"output,omitempty"`
	Priority      int             `json:"priority,omitempty"`
	MaxAttempts   int             `json:"max_attempts,omitempty"`
	Snoozes       int             `json:"snoozes,omitempty"`
	PartitionKey  string          `json:"partition_key,omitempty"`
	Sequence      store.Sequence  `json:"sequence,omitzero"`
	Parents       []ulid.ULID     `json:"parents,omitempty"`
	RunAnyway     bool            `json:"run_anyway,omitempty"`
	Batch         ulid.ULID       `json:"batch,omitzero"`
	BatchCounted  bool            `json:"batch_counted,omitempty"`
	CallbackOf    ulid.ULID       `json:"callback_of,omitzero"`
	DeadFrom      string          `json:"dead_from,omitempty"`
}

// shownJob is j as the JSON outputs print it, its secrets hidden: in the
// documents and the failure reason.
func shownJob(j store.Job) jobJSON {
	s := jobJSON(j)
	s.Payload, s.FailedReason = redact.Compact(j.Payload), redact.Text(j.FailedReason)
	if j.Metadata != nil {
		s.Metadata = redact.Compact(j.Metadata)
	}
	if j.Output != nil {
		s.Output = redact.Compact(j.Output)
	}
	return s
}

func jobsJSON(jobs []store.Job) []jobJSON {
	out := make([]jobJSON, len(jobs))
	for i, j := range jobs {
		out[i] = shownJob(j)
	}
	return out
}

// writeJSON writes v as indented JSON, leaving <, > and & as they are (a
// reason or payload with a URL stays readable), the indentation capped as
// redact.Indent caps it: a document nested thousands deep would otherwise
// print the square of its depth in spaces.
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(append(redact.Indent(b.Bytes()), '\n'))
	return err
}
