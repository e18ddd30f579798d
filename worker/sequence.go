package worker

import (
	"context"
	"fmt"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// SequenceKey puts the jobs in the sequence named key: the jobs with one
// sequence key run one at a time, across every queue and worker process,
// in the order they were enqueued (a batch in its order), through
// retries, snoozes and rescues, which keep a job's place. A job that
// fails for good halts its sequence: the later jobs wait until an
// operator retries the job (it keeps its place) or skips it
// (Client.SkipJob, `worker jobs skip`), unless the enqueuer chose
// SequenceContinuesOnFailure. A key is at most store.MaxSequenceKeyBytes
// of UTF-8 without NUL; "" is none. A job takes a sequence key or a
// partition key (PartitionKey), not both.
func SequenceKey(key string) EnqueueOption {
	return func(o *enqueueOptions) { o.sequence.key = key }
}

// SequenceContinuesOnFailure lets the sequence of the jobs (SequenceKey)
// go on past a job of theirs that fails for good, rather than halt.
func SequenceContinuesOnFailure() EnqueueOption {
	return func(o *enqueueOptions) { o.sequence.continues = true }
}

// sequenceOptions is what SequenceKey and SequenceContinuesOnFailure
// asked for.
type sequenceOptions struct {
	key       string
	continues bool
}

func (s sequenceOptions) apply(j *store.NewJob) {
	j.SequenceKey, j.SequenceContinues = s.key, s.continues
}

// SkipJob releases the sequence that job id halts (it failed for good):
// the job stays failed, marked skipped, and the next job of its sequence
// may start. To run the job again in its place instead, retry it
// (`worker jobs retry`). An error wrapping store.ErrConflict when the job
// halts no sequence, store.ErrNotFound when there is no such job.
func (c *Client) SkipJob(ctx context.Context, id ulid.ULID) (store.Job, error) {
	var job store.Job
	err := c.st.InTx(ctx, func(tx store.Tx) (err error) { job, err = tx.SkipJob(ctx, id); return err })
	if err != nil {
		return store.Job{}, fmt.Errorf("worker: %w", err)
	}
	return job, nil
}
