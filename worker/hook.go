package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"
)

// PendingJob is a job about to be stored, as enqueue hooks see it.
type PendingJob struct {
	Queue       string
	Payload     json.RawMessage // encoded; hooks must not change it
	ScheduledAt time.Time       // zero: available at once
	// Metadata holds the entries the job will be stored with (WithMetadata,
	// the trace context, earlier hooks'). Hooks may add, change or delete
	// entries; it is never nil.
	Metadata map[string]string
}

// EnqueueHook runs for each job on every enqueue path of a Client
// (Enqueue with or without WithScheduledAt, EnqueueTx, EnqueueMany), in the caller's
// goroutine, before anything is written. It may add metadata — a tenant,
// the caller's identity, a trace — or refuse the job with an error: then
// the whole call fails with that error (errors.Is sees it) and nothing is
// stored, not even the batch's other jobs. Jobs the leader enqueues for schedules, and
// retries, do not pass through hooks; retries keep the metadata.
type EnqueueHook func(ctx context.Context, job PendingJob) error

// OnEnqueue adds hooks to c, run in the order added. A nil hook is an
// error, and then none of hooks is added.
func (c *Client) OnEnqueue(hooks ...EnqueueHook) error {
	if i := slices.IndexFunc(hooks, func(h EnqueueHook) bool { return h == nil }); i >= 0 {
		return fmt.Errorf("worker: enqueue hook %d of %d is nil", i, len(hooks))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hooks = append(c.hooks, hooks...)
	return nil
}

// enqueueHooks returns the hooks added so far.
func (c *Client) enqueueHooks() []EnqueueHook {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hooks[:len(c.hooks):len(c.hooks)]
}

// runHooks passes job number i through hooks, starting from the entries
// base, and returns its encoded metadata.
func runHooks(ctx context.Context, hooks []EnqueueHook, i int, job PendingJob, base map[string]string) (json.RawMessage, error) {
	job.Metadata = maps.Clone(base)
	if job.Metadata == nil {
		job.Metadata = map[string]string{}
	}
	for _, h := range hooks {
		if err := h(ctx, job); err != nil {
			return nil, fmt.Errorf("worker: enqueue hook refused payload %d for queue %q: %w", i, job.Queue, err)
		}
	}
	return encodeMetadata(job.Metadata)
}

// encodeMetadata returns entries as a JSON object, or nil when there are
// none (stored as {}).
func encodeMetadata(entries map[string]string) (json.RawMessage, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	meta, err := json.Marshal(entries)
	if err != nil {
		return nil, fmt.Errorf("worker: encode job metadata: %w", err)
	}
	return meta, nil
}
