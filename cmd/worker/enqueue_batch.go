package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

// batchFlags are enqueue's flags of batches.
type batchFlags struct {
	queue   string
	payload string
}

func (f *batchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.queue, "batch-callback-queue", "", "make the jobs a batch: -payload is a JSON array, one member per element, and a callback job on this queue runs once every member ended")
	fs.StringVar(&f.payload, "batch-callback-payload", "{}", "with -batch-callback-queue: the callback's payload (a JSON document)")
}

// on reports whether the flags ask for a batch.
func (f *batchFlags) on() bool { return f.queue != "" }

// members splits -payload, a JSON array, into the members' payloads, each
// checked as a job of queue would be; check is the built-in queue's, nil
// for none.
func (f *batchFlags) members(payload json.RawMessage, check func(json.RawMessage) error) ([]json.RawMessage, error) {
	var members []json.RawMessage
	if err := json.Unmarshal(payload, &members); err != nil || len(members) == 0 {
		return nil, usagef("-payload with -batch-callback-queue: want a JSON array of at least one member's payload")
	}
	for i, m := range members {
		if check == nil {
			continue
		}
		if err := check(m); err != nil {
			return nil, usagef("-payload: member %d: %v", i, err)
		}
	}
	if !json.Valid([]byte(f.payload)) {
		return nil, usagef("-batch-callback-payload %s is not a JSON document", shown(f.payload))
	}
	return members, nil
}

// enqueueBatch adds members and the callback as one batch, the members
// with job's options and extra, and prints the batch's id (its
// callback's), then each member's.
func (c *cli) enqueueBatch(ctx context.Context, st store.Store, f *enqueueFlags, job store.NewJob, members []json.RawMessage,
	extra []worker.EnqueueOption) error {
	var opts []worker.EnqueueOption
	err := st.InTx(ctx, func(tx store.Tx) (err error) { opts, err = f.options(ctx, tx, job, extra); return err })
	if err != nil {
		return err
	}
	opts = append(opts, worker.CallbackOptions(worker.WithQueue(f.batch.queue)))
	cb, ids, err := worker.EnqueueBatch(ctx, worker.NewClient(st, nil), members, json.RawMessage(f.batch.payload), opts...)
	if err != nil {
		return err
	}
	for _, id := range append([]ulid.ULID{cb}, ids...) {
		fmt.Fprintln(c.stdout, id)
	}
	return nil
}
