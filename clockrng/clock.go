package clockrng

import "github.com/benbjohnson/clock"

// Clock is a worker's local clock: it drives the poll timer, jitter,
// heartbeats, job timeouts and the drain deadline, never a database lease.
// It is benbjohnson/clock's interface so that production uses the real clock
// and tests use clock.Mock.
type Clock = clock.Clock

// Mock is a clock that only moves when told to; tests and the simulator use it.
type Mock = clock.Mock

// Real returns the machine's wall clock. It is the only place in tickwork
// allowed to read real time.
func Real() Clock { return clock.New() }

// NewMock returns a mock clock set to the Unix epoch.
func NewMock() *Mock { return clock.NewMock() }
