package worker

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/tickwork/tickwork/store"
)

// RawJob is a job as middleware sees it: its payload still encoded.
type RawJob = Job[json.RawMessage]

// Middleware wraps every call of a handler: it runs before and after the
// handler, with the job in reach, and calls next to go on (to the next
// middleware, then the handler). Use it to put a tenant, an identity or a
// trace into the handler's context from the job's metadata.
//
// What it returns decides the attempt exactly as a handler's error does
// (see DecisionOf): a middleware that returns FailJob(err) without calling
// next fails the job, one that returns a plain error retries it. A panic in
// a middleware is recovered and retried like a handler's panic. The
// handler's timeout is already running when the first middleware starts.
type Middleware func(ctx context.Context, job RawJob, next func(context.Context) error) error

// WithMiddleware wraps this queue's handler in mws, after (inside) the
// worker's Options.Middleware; the first listed is the outermost.
func WithMiddleware(mws ...Middleware) HandlerOption {
	return func(h *handler) { h.middleware = append(h.middleware, mws...) }
}

// wrap returns run inside mws, the first outermost. With no middleware it
// is run itself, so a worker without middleware pays nothing per job.
func wrap(mws []Middleware, run func(context.Context, store.Job) error) func(context.Context, store.Job) error {
	if len(mws) == 0 {
		return run
	}
	mws = slices.Clone(mws)
	return func(ctx context.Context, j store.Job) error {
		job := jobView[json.RawMessage](j)
		job.Payload = j.Payload
		var layer func(i int) func(context.Context) error
		layer = func(i int) func(context.Context) error {
			if i == len(mws) {
				return func(ctx context.Context) error { return run(ctx, j) }
			}
			return func(ctx context.Context) error { return mws[i](ctx, job, layer(i+1)) }
		}
		return layer(0)(ctx)
	}
}

// jobView returns the fields of row a handler sees, without its payload.
func jobView[T any](row store.Job) Job[T] {
	return Job[T]{ID: row.ID, Queue: row.Queue, Attempt: row.Attempt, Metadata: row.Metadata,
		CreatedAt: row.CreatedAt, ScheduledAt: row.ScheduledAt, ScheduleName: row.ScheduleName}
}

// MetadataValue returns the metadata entry key (set with WithMetadata or
// by an enqueue hook) and whether the job has it as a string.
func (j Job[T]) MetadataValue(key string) (string, bool) {
	var entries map[string]any
	if json.Unmarshal(j.Metadata, &entries) != nil {
		return "", false
	}
	v, ok := entries[key].(string)
	return v, ok
}
