package worker

import (
	"context"
	"fmt"
	"maps"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
)

// DeadLetter sends the handler's jobs that fail for good (the handler
// decided to fail them, or their attempts ran out) to queue dead instead
// of keeping them failed in place: the worker writes it on the queue's row
// each time it registers (Config.DeadLetters, which it overrides), so that
// every worker and the leader honour it, its handler's or not (Client.SetQueueDeadLetter does the same from a
// client). A dead-lettered job keeps its status and the queue it failed in
// (store.Job.DeadFrom); Client.Redrive sends it back there.
func DeadLetter(dead string) HandlerOption { return func(h *handler) { h.deadLetter = dead } }

// checkDeadLetter refuses a dead-letter queue ("" for none) that is not a
// valid queue name or is the queue itself.
func checkDeadLetter(queue, dead string) error {
	if dead == "" {
		return nil
	}
	if err := names.Check("dead-letter queue", dead); err != nil {
		return err
	}
	if dead == queue {
		return fmt.Errorf("DeadLetter(%s): a queue cannot dead-letter to itself", names.Quote(dead))
	}
	return nil
}

// deadLetters returns the dead-letter queues of the config, overridden by
// those of the handlers that set one.
func deadLetters(cfg map[string]string, handlers map[string]*handler) map[string]string {
	out := maps.Clone(cfg)
	if out == nil {
		out = map[string]string{}
	}
	for q, h := range handlers {
		if h.deadLetter != "" {
			out[q] = h.deadLetter
		}
	}
	return out
}

// SetQueueDeadLetter makes dead the dead-letter queue of queue, durably
// and for every worker: its jobs that fail for good from then on move to
// dead (see DeadLetter). "" clears it; jobs dead-lettered before stay in
// dead. A queue cannot dead-letter to itself.
func (c *Client) SetQueueDeadLetter(ctx context.Context, queue, dead string) error {
	return c.queueControl(ctx, "set dead-letter queue of", queue, func(tx store.Tx) error {
		return tx.SetQueueDeadLetter(ctx, queue, dead)
	})
}

// redrivePage is how many dead-lettered jobs one transaction of Redrive
// sends back: each page commits on its own, so a large dead-letter queue
// never holds one long transaction.
const redrivePage = 100

// Redrive sends every job dead-lettered into queue dead back to the queue
// it failed in, as a new attempt available at once: the retry an operator
// starts with `worker jobs retry`, chained to the dead row by its next
// attempt, which leaves the dead row in dead as history. It returns the
// new attempts' ids, the failed rows' first, each in id order. A job whose
// unique key another row now holds is not redriven and ends Redrive with
// an error naming it, after the pages before it committed. Rows of dead
// that were enqueued there, not dead-lettered, are left alone.
func (c *Client) Redrive(ctx context.Context, dead string) ([]ulid.ULID, error) {
	if err := names.Check("queue", dead); err != nil {
		return nil, fmt.Errorf("worker: redrive: %w", err)
	}
	var out []ulid.ULID
	for _, status := range []store.Status{store.Failed, store.Lost} {
		f := store.JobFilter{Status: status, Queue: dead, LastAttempt: true, Limit: redrivePage}
		for more := true; more; {
			var next []store.Job
			page := f
			err := c.st.InTx(ctx, func(tx store.Tx) (err error) {
				next, page, more, err = store.RedrivePage(ctx, tx, f, c.newID)
				return err
			})
			if err != nil {
				return out, fmt.Errorf("worker: redrive queue %s: %w", names.Quote(dead), err)
			}
			for _, j := range next {
				out = append(out, j.ID)
			}
			f = page
		}
	}
	return out, nil
}
