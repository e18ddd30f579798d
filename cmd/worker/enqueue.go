package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/encryption"
	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

const enqueueSynopsis = `worker enqueue -queue Q -payload JSON|@FILE|- [-at TIME | -in DURATION] [-priority N] [-max-attempts N] [-unique-key K] [-sequence K] [-after ID,...] [-batch-callback-queue Q] [flags]

Adds one job and prints its id. Without -at or -in the job is available at
once; with -at (RFC 3339, e.g. 2030-01-02T15:04:05Z) it waits until then,
with -in (e.g. 10s) until that long after the database's current time. The
payload is a JSON document of at most 1 MiB, given on the command line,
read from a file (-payload @job.json) or from standard input (-payload -).
A payload for a built-in queue (webhook, noop) is checked before it is
stored. -priority 0 (the default) is reserved first, 9 last. -max-attempts
gives the job its own bound on its runs, retries included, which every
worker applies (a leader rescuing it too) over its queue's and its
-max-retries. With -unique-key (or -unique-by-payload) nothing is stored
while a job holding the same key exists: its id is printed instead, with a
note on standard error. With -sequence the job joins that sequence: the
jobs of one sequence run one at a time in the order they were enqueued,
and one that fails for good halts the later ones until it is retried or
skipped (worker jobs skip), unless -sequence-continues. With -after the
job waits (status waiting) until every job named has completed; a parent
that fails for good or is cancelled cancels it, unless -run-anyway. With
-batch-callback-queue the payload is a JSON array: each element is a member
of one batch, given the other flags, and a callback job on that queue
(payload -batch-callback-payload) waits until every member ended, however;
the batch's id (its callback's) is printed, then each member's.
-print-sql prints the statement that enqueues the same job through the
schema's SQL function, for a service in another language, and enqueues
nothing. -encrypt stores the payload encrypted with the newest key of
-encryption-keys (TICKWORK_ENCRYPTION_KEYS); workers need that key to run
the job, and jobs show prints "encrypted" in its place.`

// enqueueFlags are the flags of worker enqueue, besides the database's.
type enqueueFlags struct {
	queue       string
	payload     string
	at          string
	in          time.Duration
	priority    int
	maxAttempts int
	unique      uniqueFlags
	sequence    string
	continues   bool
	after       afterFlags
	batch       batchFlags
	printSQL    bool
	encrypt     bool
	keys        keysFlag
}

// maxDelay bounds -in: ten years.
const maxDelay = 10 * 365 * day

func (f *enqueueFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.queue, "queue", "", fmt.Sprintf("queue to add the job to (required; 1 to %d bytes)", store.MaxQueueNameBytes))
	fs.StringVar(&f.payload, "payload", "", "job payload (required): a JSON document, @FILE to read it from FILE, or - to read it from standard input; at most 1 MiB")
	fs.StringVar(&f.at, "at", "", "run the job no earlier than this RFC 3339 time")
	durationVar(fs, &f.in, "in", 0, 0, maxDelay, "run the job no earlier than this long after the database's current time")
	f.unique.register(fs)
	f.after.register(fs)
	f.batch.register(fs)
	intVar(fs, &f.priority, "priority", 0, store.MinPriority, store.MaxPriority, "the job's priority: workers reserve smaller numbers first")
	intVar(fs, &f.maxAttempts, "max-attempts", 0, 0, store.MaxJobAttempts, "the job's own bound on its runs, retries included (0: none, its queue's or the workers' bound applies)")
	fs.StringVar(&f.sequence, "sequence", "", fmt.Sprintf("the sequence the job joins: its jobs run one at a time in enqueue order (at most %d bytes)", store.MaxSequenceKeyBytes))
	fs.BoolVar(&f.continues, "sequence-continues", false, "with -sequence: a failure for good of the job does not halt its sequence")
	fs.BoolVar(&f.printSQL, "print-sql", false, printSQLUsage)
	fs.BoolVar(&f.encrypt, "encrypt", false, "store the payload encrypted with the newest key of -encryption-keys (worker.Encrypted)")
	f.keys.register(fs)
}

func (c *cli) enqueueCmd(ctx context.Context, args []string) error {
	fs, db := c.dbFlagSet("worker enqueue", enqueueSynopsis)
	var f enqueueFlags
	f.register(fs)
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	job, err := f.newJob(c.stdin)
	if err != nil {
		return err
	}
	var existing store.Job
	uniqueOpts, err := f.unique.options(&existing)
	if err != nil {
		return err
	}
	afterOpts, err := f.after.options()
	if err != nil {
		return err
	}
	uniqueOpts = append(uniqueOpts, afterOpts...)
	keys, err := f.encryptionKeys()
	if err != nil {
		return err
	}
	if f.printSQL { // needs no database
		text, err := f.enqueueSQL(db.schema, job)
		if err != nil {
			return err
		}
		fmt.Fprintln(c.stdout, text)
		return nil
	}
	if err := db.validate(); err != nil {
		return err
	}
	var members []json.RawMessage
	if f.batch.on() {
		if members, err = f.batch.members(job.Payload, builtinQueues[job.Queue]); err != nil {
			return err
		}
	}
	log := c.defaultLogger()
	if _, ok := builtinQueues[job.Queue]; !ok {
		log.Warn("queue has no built-in handler: the job runs only on a worker that registers one", "queue", job.Queue)
	}
	st, err := c.openWriterStore(ctx, db, log)
	if err != nil {
		return err
	}
	defer st.Close()
	if members != nil {
		if err := c.enqueueBatch(ctx, st, &f, job, members, uniqueOpts); err != nil {
			return explainStoreError(fmt.Errorf("enqueue a batch on queue %s: %w", shown(job.Queue), err), db.schema)
		}
		return nil
	}
	client := worker.NewClient(st, nil)
	client.SetEncryption(keys)
	var id ulid.ULID
	err = st.InTx(ctx, func(tx store.Tx) error {
		opts, err := f.options(ctx, tx, job, uniqueOpts)
		if err != nil {
			return err
		}
		if f.encrypt {
			opts = append(opts, worker.Encrypted())
		}
		id, err = worker.EnqueueTx(ctx, client, tx, job.Payload, opts...)
		return err
	})
	if err != nil {
		return explainStoreError(fmt.Errorf("enqueue on queue %s: %w", shown(job.Queue), err), db.schema)
	}
	if existing.ID == id {
		fmt.Fprintf(c.stderr, "worker enqueue: nothing enqueued: job %s (%s) holds the unique key %s\n", id, existing.Status, shown(existing.UniqueKey))
	}
	fmt.Fprintln(c.stdout, id)
	return nil
}

// encryptionKeys returns the ring -encrypt seals with (nil without
// -encrypt). -encrypt needs keys, and cannot go with the statement
// -print-sql prints (SQL has no key) nor a batch's members.
func (f *enqueueFlags) encryptionKeys() (*encryption.Ring, error) {
	if !f.encrypt {
		return nil, nil
	}
	switch {
	case f.printSQL:
		return nil, usagef("-encrypt cannot go with -print-sql: the SQL function stores the payload as given")
	case f.batch.on():
		return nil, usagef("-encrypt cannot go with -batch-callback-queue")
	case f.keys.text == "":
		return nil, usagef("-encrypt needs keys: set TICKWORK_ENCRYPTION_KEYS or pass -encryption-keys")
	}
	return f.keys.ring()
}

// options are the enqueue options of job: its queue, time (-in from the
// store's now in tx), priority, bound and sequence, and extra.
func (f *enqueueFlags) options(ctx context.Context, tx store.Tx, job store.NewJob, extra []worker.EnqueueOption) ([]worker.EnqueueOption, error) {
	at := job.ScheduledAt
	if f.in > 0 {
		now, err := tx.Now(ctx)
		if err != nil {
			return nil, err
		}
		at = now.Add(f.in)
	}
	opts := append([]worker.EnqueueOption{worker.WithQueue(job.Queue), worker.WithScheduledAt(at), worker.WithPriority(job.Priority)}, extra...)
	if job.MaxAttempts > 0 {
		opts = append(opts, worker.WithMaxAttempts(job.MaxAttempts))
	}
	if job.SequenceKey != "" {
		opts = append(opts, worker.SequenceKey(job.SequenceKey))
	}
	if job.SequenceContinues {
		opts = append(opts, worker.SequenceContinuesOnFailure())
	}
	return opts, nil
}

// newJob checks enqueue's flags, reads the payload and describes the job
// (its id is made at insert). Each error names the flag at fault.
func (f *enqueueFlags) newJob(stdin io.Reader) (store.NewJob, error) {
	if f.queue == "" {
		return store.NewJob{}, usagef("-queue is required")
	}
	if !names.Valid(f.queue) || !utf8.ValidString(f.queue) || strings.ContainsRune(f.queue, 0) {
		return store.NewJob{}, usagef("-queue %s: a queue name is 1 to %d bytes of UTF-8 without NUL", shown(f.queue), store.MaxQueueNameBytes)
	}
	payload, err := readPayload(f.payload, stdin)
	if err != nil {
		return store.NewJob{}, err
	}
	if check, ok := builtinQueues[f.queue]; ok {
		if err := check(payload); err != nil {
			return store.NewJob{}, usagef("-payload for queue %q: %v", f.queue, err)
		}
	}
	job := store.NewJob{Queue: f.queue, Payload: payload, Priority: f.priority, MaxAttempts: f.maxAttempts,
		SequenceKey: f.sequence, SequenceContinues: f.continues}
	switch {
	case f.continues && f.sequence == "":
		return store.NewJob{}, usagef("-sequence-continues without -sequence: it says what a failure does to the job's sequence")
	case f.at != "" && f.in != 0:
		return store.NewJob{}, usagef("-at and -in both say when the job runs: give one of them")
	case f.at != "":
		t, err := time.Parse(time.RFC3339Nano, f.at)
		if err != nil {
			return store.NewJob{}, usagef("-at %s is not an RFC 3339 time such as 2030-01-02T15:04:05Z", shown(f.at))
		}
		job.ScheduledAt = t
	}
	return job, nil
}

// readPayload returns the JSON document -payload gives: the flag's value,
// the contents of the file after @, or standard input for -.
func readPayload(value string, stdin io.Reader) (json.RawMessage, error) {
	from, doc := "", []byte(value)
	switch {
	case value == "":
		return nil, usagef("-payload is required (a JSON document such as {}, @FILE or - for standard input)")
	case value == "-":
		from = " (standard input)"
		var err error
		if doc, err = readLimited(stdin); err != nil {
			return nil, fmt.Errorf("-payload -: read standard input: %w", err)
		}
	case strings.HasPrefix(value, "@"):
		from = " (file " + shown(value[1:]) + ")"
		file, err := os.Open(value[1:])
		if err != nil {
			return nil, usagef("-payload %s: %v", shown(value), errors.Unwrap(err))
		}
		defer file.Close()
		if doc, err = readLimited(file); err != nil {
			return nil, fmt.Errorf("-payload %s: %w", shown(value), err)
		}
	}
	if len(doc) > store.MaxPayloadBytes {
		return nil, usagef("-payload%s has more than the %d bytes a job may carry", from, store.MaxPayloadBytes)
	}
	var syntax *json.SyntaxError
	switch err := json.Unmarshal(doc, new(json.RawMessage)); {
	case errors.As(err, &syntax):
		return nil, usagef("-payload%s is not valid JSON: %v (at byte %d)", from, err, syntax.Offset)
	case err != nil:
		return nil, usagef("-payload%s is not valid JSON: %v", from, err)
	case !utf8.Valid(doc):
		return nil, usagef("-payload%s is not valid UTF-8", from)
	}
	return doc, nil
}

// readLimited reads r up to one byte past the payload limit, so that a
// larger input is detected without reading it all.
func readLimited(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, store.MaxPayloadBytes+1))
}
