package storetest

import (
	"context"
	"time"

	"github.com/tickwork/tickwork/store"
)

// NotifyWait is how long, in real time, the suite waits for a notification.
// PostgreSQL delivers them asynchronously, so this is the one place the
// suite waits on the wall clock; it does so through a context deadline and
// only ever waits this long when a store fails to notify.
const NotifyWait = 10 * time.Second

// listen subscribes until the test ends.
func (h *harness) listen() <-chan store.Notification {
	h.t.Helper()
	ch, err := h.st.Listen(h.ctx)
	if err != nil {
		h.t.Fatalf("Listen: %v", err)
	}
	return ch
}

// wantNotes fails unless the next notifications on ch are want, in order.
func (h *harness) wantNotes(ch <-chan store.Notification, want ...store.Notification) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.ctx, NotifyWait)
	defer cancel()
	for i, w := range want {
		select {
		case got, ok := <-ch:
			if !ok {
				h.t.Fatalf("notification %d: channel closed, want %+v", i, w)
			}
			if got != w {
				h.t.Fatalf("notification %d = %+v, want %+v", i, got, w)
			}
		case <-ctx.Done():
			h.t.Fatalf("notification %d: none within %v, want %+v", i, NotifyWait, w)
		}
	}
}

func available(queue string) store.Notification {
	return store.Notification{Channel: store.ChannelAvailable, Queue: queue}
}

// insertBatch inserts one available job per queue in one transaction.
func (h *harness) insertBatch(queues ...string) {
	h.t.Helper()
	var jobs []store.NewJob
	for _, q := range queues {
		jobs = append(jobs, store.NewJob{ID: h.newID(), Queue: q, Payload: payload(1)})
	}
	h.do(func(tx store.Tx) error { _, err := tx.InsertJobs(h.ctx, jobs); return err })
}

var notifyCases = []testCase{
	{"InsertOfAvailableJob", func(h *harness) {
		ch := h.listen()
		h.insert("q", time.Time{})
		h.wantNotes(ch, available("q"))
	}},
	{"OnePerQueueInNameOrder", func(h *harness) {
		ch := h.listen()
		h.insertBatch("c", "a", "c", "b")
		h.insertBatch("a")
		h.wantNotes(ch, available("a"), available("b"), available("c"), available("a"))
	}},
	{"OncePerTransactionLikeNotify", func(h *harness) {
		// PostgreSQL folds identical notifications of one transaction into
		// the first; mem does the same.
		ch := h.listen()
		h.do(func(tx store.Tx) error {
			for _, q := range []string{"b", "a", "b"} {
				if _, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: h.newID(), Queue: q, Payload: payload(1)}}); err != nil {
					return err
				}
			}
			return nil
		})
		h.insert("c", time.Time{})
		h.wantNotes(ch, available("b"), available("a"), available("c"))
	}},
	{"ScheduledInsertIsSilentUntilPromoted", func(h *harness) {
		ch := h.listen()
		h.insert("later", h.clock.Now().Add(time.Minute))
		h.insert("now", time.Time{})
		h.wantNotes(ch, available("now"))
		h.clock.Advance(time.Minute)
		h.do(func(tx store.Tx) error { _, err := tx.PromoteScheduledJobs(h.ctx); return err })
		h.wantNotes(ch, available("later"))
	}},
	{"ImmediateRetry", func(h *harness) {
		w := h.worker()
		id := h.running(w, "q")
		h.fail(w, id, "x")
		ch := h.listen()
		h.retry(id, time.Minute)
		h.retry(h.failNext(w, "r"), 0)
		h.wantNotes(ch, available("r"), available("r"))
	}},
	{"ResumeAndARaisedLimitWakeTheQueue", func(h *harness) {
		// Waiting jobs become reservable with no row of theirs written:
		// workers that only wait on notifications must hear of it.
		h.pause("a")
		h.setLimit("a", 1)
		h.setLimit("b", 2)
		ch := h.listen()
		h.setLimit("a", 2) // still paused: silent
		h.resume("a")
		h.setLimit("b", 1) // lowered: silent
		h.setLimit("b", 3)
		h.setLimit("b", 0)
		h.resume("c") // never paused: silent
		h.pause("c")
		h.insert("z", time.Time{})
		h.wantNotes(ch, available("a"), available("b"), available("b"), available("z"))
	}},
	{"RollbackIsSilent", func(h *harness) {
		ch := h.listen()
		_ = h.tx(func(tx store.Tx) error {
			if _, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: h.newID(), Queue: "gone", Payload: payload(1)}}); err != nil {
				return err
			}
			return errAbort
		})
		h.insert("kept", time.Time{})
		h.wantNotes(ch, available("kept"))
	}},
	{"ReleaseSendsStepdown", func(h *harness) {
		w := h.worker()
		h.acquire(w, ttl)
		ch := h.listen()
		h.do(func(tx store.Tx) error { _, err := tx.ReleaseLease(h.ctx, w); return err })
		h.wantNotes(ch, store.Notification{Channel: store.ChannelStepdown})
	}},
	{"ListenEndsWithContext", func(h *harness) {
		ctx, cancel := context.WithCancel(h.ctx)
		ch, err := h.st.Listen(ctx)
		if err != nil {
			h.t.Fatal(err)
		}
		cancel()
		wait, stop := context.WithTimeout(h.ctx, NotifyWait)
		defer stop()
		for {
			select {
			case _, ok := <-ch:
				if !ok {
					return
				}
			case <-wait.Done():
				h.t.Fatalf("Listen channel still open %v after its context ended", NotifyWait)
			}
		}
	}},
}
