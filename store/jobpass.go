package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// JobPass is a worker's usual job-path transaction: heartbeat, complete the
// jobs that succeeded, ask which of the jobs it executes were cancelled,
// reserve more. It is one request rather than a series
// of Tx calls so that a store can carry it out in one round trip (store/pg
// sends it as one pipelined batch); RunJobPass gives its meaning.
type JobPass struct {
	// Worker is the live worker that heartbeats and reserves. The zero id
	// does neither (completions still apply).
	Worker ulid.ULID
	// Heartbeat sets Worker's last_seen_at to now.
	Heartbeat bool
	// Complete lists succeeded jobs, grouped by the worker id that reserved
	// them (a worker that registered again still completes its old jobs).
	Complete []Completion
	// Executing lists jobs the worker executes whose rows it asks about:
	// the result's Cancelled says which were cancelled (CancelledJobs).
	Executing []ulid.ULID
	// Queues and Limit are Reserve's: up to Limit jobs of Queues.
	Queues []string
	Limit  int
}

// Completion is one CompleteJobs call: the succeeded jobs that Worker
// reserved, with the outputs their handlers recorded.
type Completion struct {
	Worker ulid.ULID
	IDs    []ulid.ULID
	// Outputs is nil, or holds one entry per id: the JSON document kept
	// with the completed row, nil for none. An id given twice keeps the
	// output of its first entry.
	Outputs []json.RawMessage
}

// Output returns the output given for the i-th id, nil for none.
func (c Completion) Output(i int) json.RawMessage {
	if i < len(c.Outputs) {
		return c.Outputs[i]
	}
	return nil
}

// ValidateOutputs checks c's outputs as payloads are checked (valid JSON,
// UTF-8, at most MaxPayloadBytes) and that there is one per id.
func (c Completion) ValidateOutputs() error {
	if c.Outputs != nil && len(c.Outputs) != len(c.IDs) {
		return fmt.Errorf("complete %d jobs with %d outputs: %w", len(c.IDs), len(c.Outputs), ErrInvalid)
	}
	for i, out := range c.Outputs {
		if out == nil {
			continue
		}
		if err := ValidateOutput(out); err != nil {
			return fmt.Errorf("complete job %s: %w", c.IDs[i], err)
		}
	}
	return nil
}

// ValidateOutput checks a job's recorded output as a payload is checked:
// valid JSON and UTF-8, at most MaxPayloadBytes. The error wraps ErrInvalid.
func ValidateOutput(doc json.RawMessage) error { return validateDocument("output", doc) }

// JobPassResult is what a JobPass did.
type JobPassResult struct {
	// Now is the transaction's store time.
	Now time.Time
	// Dead reports that Worker was not a live worker when the pass needed
	// it (to heartbeat or to reserve): nothing was heartbeated or reserved.
	// The completions were still applied: each is fenced by its row alone.
	Dead bool
	// Fenced lists the completions' fenced ids, in the order given.
	Fenced []ulid.ULID
	// Cancelled lists the ids of Executing whose rows are cancelled, in id
	// order.
	Cancelled []ulid.ULID
	// Reserved are the reserved jobs, in id order.
	Reserved []Job
}

// JobPasser is a store with its own, faster way to run a JobPass. Its
// RunJobPass must mean exactly what the package's RunJobPass does with InTx.
//
// It is an optional interface on purpose: a wrapper that embeds a Store
// (recording, say) does not pass it on, so every JobPass through the
// wrapper goes through the wrapper's InTx. A wrapper that must not hide
// the store's own pass implements RunJobPass itself, as the simulator's
// fault injection does (sim/faultpass.go).
type JobPasser interface {
	RunJobPass(ctx context.Context, p JobPass) (JobPassResult, error)
}

// RunJobPass runs p on st in one transaction, with st's own implementation
// when it is a JobPasser. The meaning: at the transaction's store time,
// Heartbeat(p.Worker) if asked; CompleteJobs for each completion in order;
// CancelledJobs(p.Executing) if it lists any; then Reserve(p.Worker,
// p.Queues, p.Limit) if p.Worker is set and the limit and queues allow one. A worker that is not live makes the result
// Dead instead of failing the transaction. A bad output (ErrInvalid) fails
// the pass before anything is sent. As with InTx, an ErrUnavailable may
// come after the commit.
func RunJobPass(ctx context.Context, st Store, p JobPass) (JobPassResult, error) {
	for _, c := range p.Complete {
		if err := c.ValidateOutputs(); err != nil {
			return JobPassResult{}, fmt.Errorf("job pass of worker %s: %w", p.Worker, err)
		}
	}
	if jp, ok := st.(JobPasser); ok {
		return jp.RunJobPass(ctx, p)
	}
	r := passRuns.Get().(*passRun)
	r.ctx, r.p = ctx, p
	err := st.InTx(ctx, r.body)
	res := r.res
	*r = passRun{body: r.body}
	passRuns.Put(r)
	return res, err
}

// passRun is one RunJobPass through InTx: its context, pass and result,
// and its transaction body bound once. The runs are pooled because a
// worker runs a pass on every tick, and the closure a pass would otherwise
// make, with its result, was the simulator's most frequent allocation.
type passRun struct {
	ctx  context.Context
	p    JobPass
	res  JobPassResult
	body func(Tx) error
}

var passRuns = sync.Pool{New: func() any {
	r := &passRun{}
	r.body = r.run
	return r
}}

// run is the transaction's body; InTx may run it more than once.
func (r *passRun) run(tx Tx) error {
	ctx, p := r.ctx, &r.p
	r.res = JobPassResult{}
	res := &r.res
	var err error
	if res.Now, err = tx.Now(ctx); err != nil {
		return err
	}
	if p.Heartbeats() {
		if err := tx.Heartbeat(ctx, p.Worker); errors.Is(err, ErrNotFound) {
			res.Dead = true
		} else if err != nil {
			return err
		}
	}
	for _, c := range p.Complete {
		fenced, err := tx.CompleteJobs(ctx, c)
		if err != nil {
			return err
		}
		res.Fenced = append(res.Fenced, fenced...)
	}
	if len(p.Executing) > 0 {
		if res.Cancelled, err = tx.CancelledJobs(ctx, p.Executing); err != nil {
			return err
		}
	}
	if !res.Dead && p.Reserves() {
		res.Reserved, err = tx.Reserve(ctx, p.Worker, p.Queues, p.Limit)
		if errors.Is(err, ErrNotFound) {
			res.Dead, err = true, nil
		}
		return err
	}
	return nil
}

// Heartbeats reports whether the pass asks for a heartbeat: Heartbeat is
// set and so is Worker.
func (p JobPass) Heartbeats() bool {
	return p.Heartbeat && p.Worker != ulid.ULID{}
}

// Reserves reports whether the pass asks for a reservation.
func (p JobPass) Reserves() bool {
	return p.Worker != ulid.ULID{} && p.Limit > 0 && len(p.Queues) > 0
}

// Empty reports whether the pass would do nothing.
func (p JobPass) Empty() bool {
	return !p.Heartbeats() && len(p.Complete) == 0 && len(p.Executing) == 0 && !p.Reserves()
}
