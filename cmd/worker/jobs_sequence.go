package main

import (
	"context"
	"fmt"

	"github.com/tickwork/tickwork/internal/redact"
	"github.com/tickwork/tickwork/store"
)

const jobsSkipSynopsis = `worker jobs skip [flags] ID

Releases the sequence (worker.SequenceKey) that a job failed for good
halts: the job stays failed, marked skipped, and the next job of its
sequence may start. To run the job again in its place instead, use
'worker jobs retry'.`

func (c *cli) jobsSkipCmd(ctx context.Context, args []string) error {
	st, id, schema, err := c.jobCommand(ctx, "worker jobs skip", jobsSkipSynopsis, args, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	var job store.Job
	err = st.InTx(ctx, func(tx store.Tx) (err error) { job, err = tx.SkipJob(ctx, id); return err })
	if err != nil {
		return explainStoreError(fmt.Errorf("skip job %s: %w", id, err), schema)
	}
	fmt.Fprintf(c.stdout, "job %s skipped: sequence %s goes on\n", id, cell(job.Sequence.Key))
	return nil
}

// sequenceWait says what a job of a sequence waits for, "" when it waits
// for nothing of its sequence or has none: the job that holds the
// sequence up before it (running, next to start, or halting it), or, for
// a job that halts its sequence, what would release it.
func sequenceWait(ctx context.Context, tx store.Tx, job store.Job) (string, error) {
	if !job.HoldsSequence() || job.Status == store.Running {
		return "", nil
	}
	if job.Halts() {
		return fmt.Sprintf("for an operator: it halts sequence %s; release it with 'worker jobs retry %s' (it runs again in its place) "+
			"or 'worker jobs skip %s'", cell(job.Sequence.Key), job.ID, job.ID), nil
	}
	head, waits, err := store.SequenceWait(ctx, tx, job)
	if err != nil || !waits {
		return "", err
	}
	if head.Halts() {
		return fmt.Sprintf("for its sequence %s, halted by job %s (%s: %s); release it with 'worker jobs retry %s' or 'worker jobs skip %s'",
			cell(job.Sequence.Key), head.ID, head.Status, shorten(redact.Text(head.FailedReason), 80), head.ID, head.ID), nil
	}
	return fmt.Sprintf("for its sequence's head: job %s (%s) of sequence %s comes first", head.ID, head.Status, cell(job.Sequence.Key)), nil
}

// sequenceField is the sequence line of jobs show.
func sequenceField(s store.Sequence) string {
	out := fmt.Sprintf("%s, place %d", cell(s.Key), s.Pos)
	if s.Continues {
		out += ", continues on failure"
	}
	if s.Skipped {
		out += ", skipped"
	}
	return out
}
