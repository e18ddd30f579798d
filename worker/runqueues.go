package worker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/worker/engine"
)

// A running worker's queues change through each lane's loop, which steps
// its policy with engine.InQueueAdded or engine.InQueueRemoved between
// store calls, as the simulator does (engine/queues.go): the core decides
// what its next job pass reserves and when a removed queue has drained.

// ErrNotRunning is returned by AddQueue and RemoveQueue while Run is not
// running: before Run, set Config.Queues instead.
var ErrNotRunning = errors.New("the worker is not running")

// laneCtl is how AddQueue and RemoveQueue reach one lane's loop.
type laneCtl struct {
	reqs   chan queueReq
	exited chan struct{} // closed once the lane's policy exited
}

// queueReq is one change of a lane's queues; drained, for a removal, is
// closed once the lane ran and recorded every job of the queue it had
// (or exited).
type queueReq struct {
	in      engine.Input
	drained chan struct{}
}

func newLaneCtl() *laneCtl { return &laneCtl{reqs: make(chan queueReq), exited: make(chan struct{})} }

// AddQueue has the running worker reserve jobs of queue too, from its next
// tick on, with the handler and the retry policy registered for queue
// before Run (Handle), as if queue had been in Config.Queues. It returns
// once every lane took the change, or with ctx's error. A queue the worker
// already reserves from, one without a handler, an invalid name and a
// worker not running (ErrNotRunning) are refused. ctx is not read: the
// change is handed to each lane between its store calls.
func (w *Worker) AddQueue(ctx context.Context, queue string) error {
	ctls, err := w.changeQueues("add", queue, func(queues []string, i int, found bool) ([]string, error) {
		if found {
			return nil, fmt.Errorf("worker: add queue %s: the worker already reserves from it", names.Quote(queue))
		}
		if w.handlers[queue] == nil {
			return nil, fmt.Errorf("worker: add queue %s: no handler is registered for it (Handle before Run)", names.Quote(queue))
		}
		return slices.Insert(queues, i, queue), nil
	})
	if err != nil {
		return err
	}
	sendQueueChange(ctls, engine.InQueueAdded, queue, nil)
	return nil
}

// RemoveQueue has the running worker reserve no more jobs of queue and
// waits for its jobs to drain as at shutdown: the running ones finish and
// their results are recorded; none is cancelled. It returns once they
// have, in every lane, or with ctx's error (the drain goes on). AddQueue
// may add the queue back at once; a RemoveQueue still waiting then
// returns once the queue is removed again and drained, or its ctx ends. A queue the worker does not reserve
// from, an invalid name and a worker not running (ErrNotRunning) are
// refused.
func (w *Worker) RemoveQueue(ctx context.Context, queue string) error {
	ctls, err := w.changeQueues("remove", queue, func(queues []string, i int, found bool) ([]string, error) {
		if !found {
			return nil, fmt.Errorf("worker: remove queue %s: the worker does not reserve from it (its queues: %s)", names.Quote(queue), quoteAll(queues))
		}
		return slices.Delete(queues, i, i+1), nil
	})
	if err != nil {
		return err
	}
	drained := make([]chan struct{}, len(ctls))
	for i := range drained {
		drained[i] = make(chan struct{})
	}
	sendQueueChange(ctls, engine.InQueueRemoved, queue, drained)
	for _, d := range drained {
		select {
		case <-d:
		case <-ctx.Done():
			return fmt.Errorf("worker: remove queue %s: waiting for its jobs to drain: %w", names.Quote(queue), context.Cause(ctx))
		}
	}
	return nil
}

// changeQueues checks queue and the worker's state, and edits the
// worker's list of queues with edit (given where queue is or would go),
// holding w.mu. It returns the lanes to tell.
func (w *Worker) changeQueues(what, queue string, edit func(queues []string, i int, found bool) ([]string, error)) ([]*laneCtl, error) {
	if err := names.Check("queue", queue); err != nil {
		return nil, fmt.Errorf("worker: %s queue: %w", what, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lanesCtl == nil || w.runEnded {
		return nil, fmt.Errorf("worker: %s queue %s: %w", what, names.Quote(queue), ErrNotRunning)
	}
	i, found := slices.BinarySearch(w.queues, queue)
	queues, err := edit(w.queues, i, found)
	if err != nil {
		return nil, err
	}
	w.queues = queues
	return w.lanesCtl, nil
}

// sendQueueChange hands the change to every lane's loop, in order; a lane
// that exited meanwhile needs none (its drain is done). It does not give up
// on ctx, so that every lane gets the change the worker's list has: a
// lane's loop takes it between store calls, each bounded by CallTimeout.
func sendQueueChange(ctls []*laneCtl, kind engine.InputKind, queue string, drained []chan struct{}) {
	for i, c := range ctls {
		req := queueReq{in: engine.Input{Kind: kind, Queue: queue}}
		if drained != nil {
			req.drained = drained[i]
		}
		select {
		case c.reqs <- req:
		case <-c.exited:
			if req.drained != nil {
				close(req.drained)
			}
		}
	}
}

// quoteAll quotes each name, comma-separated.
func quoteAll(queues []string) string {
	out := make([]string, len(queues))
	for i, q := range queues {
		out[i] = names.Quote(q)
	}
	return strings.Join(out, ", ")
}
