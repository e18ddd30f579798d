package storetest

import (
	"sync"
	"time"
)

// Epoch is where every suite clock starts. It has nanoseconds so that the
// stores' rounding to the microsecond is exercised.
var Epoch = time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.UTC)

// Clock is a store clock the suite controls. It is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock set to start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the clock's time; pass it to a store as its now function.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t (backwards too).
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Advance moves the clock by d and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}
