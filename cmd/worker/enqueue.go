package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

const enqueueSynopsis = `worker enqueue -queue Q -payload JSON [-at TIME] [flags]

Adds one job and prints its id. Without -at the job is available at once;
with -at (RFC 3339, e.g. 2030-01-02T15:04:05Z) it waits until then. A
payload for a built-in queue (webhook, noop) is checked before it is
stored.`

func (c *cli) enqueueCmd(ctx context.Context, args []string) error {
	fs, db := c.dbFlagSet("worker enqueue", enqueueSynopsis)
	queue := fs.String("queue", "", "queue to add the job to (required)")
	payload := fs.String("payload", "", "job payload, a JSON document (required)")
	at := fs.String("at", "", "run the job no earlier than this RFC 3339 time")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	job, err := newJobFromFlags(*queue, *payload, *at)
	if err != nil {
		return err
	}
	if err := db.validate(); err != nil {
		return err
	}
	log := c.defaultLogger()
	if _, ok := builtinQueues[*queue]; !ok {
		log.Warn("queue has no built-in handler: the job runs only on a worker that registers one", "queue", *queue)
	}
	st, err := c.openStore(ctx, db, log)
	if err != nil {
		return err
	}
	defer st.Close()
	opts := []worker.EnqueueOption{worker.ToQueue(job.Queue)}
	if !job.ScheduledAt.IsZero() {
		opts = append(opts, worker.At(job.ScheduledAt))
	}
	id, err := worker.Enqueue(ctx, worker.NewClient(st, nil), job.Payload, opts...)
	if err != nil {
		return explainStoreError(fmt.Errorf("enqueue on queue %q: %w", *queue, err), db.schema)
	}
	fmt.Fprintln(c.stdout, id)
	return nil
}

// newJobFromFlags checks enqueue's flags and describes the job (its id is
// made at insert).
func newJobFromFlags(queue, payload, at string) (store.NewJob, error) {
	if queue == "" {
		return store.NewJob{}, usagef("-queue is required")
	}
	if payload == "" {
		return store.NewJob{}, usagef("-payload is required (a JSON document, e.g. {})")
	}
	job := store.NewJob{Queue: queue, Payload: json.RawMessage(payload)}
	if err := store.ValidateNewJob(job); err != nil {
		return store.NewJob{}, usagef("-payload: %v", err)
	}
	if check, ok := builtinQueues[queue]; ok {
		if err := check(job.Payload); err != nil {
			return store.NewJob{}, usagef("-payload for queue %q: %v", queue, err)
		}
	}
	if at != "" {
		t, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			return store.NewJob{}, usagef("-at %q is not an RFC 3339 time such as 2030-01-02T15:04:05Z", at)
		}
		job.ScheduledAt = t
	}
	return job, nil
}

// parseJobID reads a job id given on the command line.
func parseJobID(s string) (ulid.ULID, error) {
	id, err := ulid.ParseStrict(s)
	if err != nil {
		return ulid.ULID{}, usagef("%q is not a job id (a 26-character ULID such as 01J0000000000000000000000A)", s)
	}
	return id, nil
}
