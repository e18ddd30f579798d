package tickworktest

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/tickwork/tickwork/clockrng"
)

// virtualClock is the kit's one clock: the store's time and the worker's
// local time. It moves only when the test (Kit.Advance) or Drain moves it,
// and handler deadlines expire in the call that moves it past them, in
// the caller's goroutine: a handler that advances the clock beyond its
// timeout sees its context done when Advance returns. It has no timers,
// so the kit's worker is driven by WorkOne and Drain, never by Run.
type virtualClock struct {
	clockrng.Timerless // panics with noTimers
	mu                 sync.Mutex
	now                time.Time
	deadlines          []*deadlineCtx // pending, in the order they were set
}

var _ clockrng.Clock = (*virtualClock)(nil)

func newVirtualClock(now time.Time) *virtualClock {
	return &virtualClock{Timerless: clockrng.Timerless{Why: noTimers}, now: now}
}

func (c *virtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *virtualClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c *virtualClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

// set moves the clock to t (never back) and expires the deadlines it
// reaches, earliest first.
func (c *virtualClock) set(t time.Time) {
	c.mu.Lock()
	if t.After(c.now) {
		c.now = t
	}
	var due []*deadlineCtx
	c.deadlines = slices.DeleteFunc(c.deadlines, func(d *deadlineCtx) bool {
		if d.deadline.After(c.now) {
			return false
		}
		due = append(due, d)
		return true
	})
	c.mu.Unlock()
	slices.SortStableFunc(due, func(a, b *deadlineCtx) int { return a.deadline.Compare(b.deadline) })
	for _, d := range due {
		d.expire()
	}
}

func (c *virtualClock) WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return c.WithDeadline(parent, c.Now().Add(d))
}

// WithDeadline returns a context that ends when the virtual clock reaches
// deadline, or when parent ends.
func (c *virtualClock) WithDeadline(parent context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
	if cur, ok := parent.Deadline(); ok && !cur.After(deadline) {
		return context.WithCancel(parent)
	}
	d := &deadlineCtx{Context: parent, deadline: deadline, done: make(chan struct{})}
	d.stopParent = context.AfterFunc(parent, func() { d.end(parent.Err()) })
	c.mu.Lock()
	c.deadlines = append(c.deadlines, d)
	c.mu.Unlock()
	c.set(time.Time{}) // ends it at once if the deadline has passed
	return d, func() {
		c.mu.Lock()
		c.deadlines = slices.DeleteFunc(c.deadlines, func(x *deadlineCtx) bool { return x == d })
		c.mu.Unlock()
		d.end(context.Canceled)
	}
}

// noTimers explains why the kit's clock refuses timers.
const noTimers = "tickworktest: the kit's virtual clock has no timers: drive the kit's worker with WorkOne and Drain, not Run"

// deadlineCtx is a context with a deadline on the virtual clock. It ends
// with DeadlineExceeded when the clock reaches the deadline first, and its
// children end with it in the same call, as the standard library's do.
type deadlineCtx struct {
	context.Context // the parent: values, and cancellation via stopParent
	deadline        time.Time
	stopParent      func() bool

	mu    sync.Mutex
	done  chan struct{}
	err   error
	after []*func() // AfterFunc's callbacks, run when it ends
}

func (d *deadlineCtx) Deadline() (time.Time, bool) { return d.deadline, true }
func (d *deadlineCtx) Done() <-chan struct{}       { return d.done }

func (d *deadlineCtx) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

func (d *deadlineCtx) expire() { d.end(context.DeadlineExceeded) }

// end ends the context with err unless it has ended, and runs the
// callbacks of AfterFunc: that is how context.WithCancel and the like
// propagate the end to children, at once and with this err.
func (d *deadlineCtx) end(err error) {
	d.mu.Lock()
	if d.err != nil {
		d.mu.Unlock()
		return
	}
	d.err = err
	close(d.done)
	after := d.after
	d.after = nil
	d.mu.Unlock()
	d.stopParent()
	for _, f := range after {
		(*f)()
	}
}

// AfterFunc arranges for f to run when d ends; the standard library uses
// it to tie children to d. stop reports whether it prevented the call.
func (d *deadlineCtx) AfterFunc(f func()) (stop func() bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		go f() // the caller may hold a lock f takes; the context package does the same
		return func() bool { return false }
	}
	p := &f
	d.after = append(d.after, p)
	return func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		n := len(d.after)
		d.after = slices.DeleteFunc(d.after, func(x *func()) bool { return x == p })
		return len(d.after) < n
	}
}
