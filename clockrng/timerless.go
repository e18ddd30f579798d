package clockrng

import (
	"time"

	"github.com/benbjohnson/clock"
)

// Timerless is the waiting half of a Clock for clocks that only read the
// time and set deadlines: code that runs a handler inline (tickworktest's
// kit, the simulator's workers) never waits on its clock, so a clock that
// embeds Timerless panics with Why if anything tries.
type Timerless struct{ Why string }

func (t Timerless) After(time.Duration) <-chan time.Time         { panic(t.Why) }
func (t Timerless) AfterFunc(time.Duration, func()) *clock.Timer { panic(t.Why) }
func (t Timerless) Sleep(time.Duration)                          { panic(t.Why) }
func (t Timerless) Tick(time.Duration) <-chan time.Time          { panic(t.Why) }
func (t Timerless) Ticker(time.Duration) *clock.Ticker           { panic(t.Why) }
func (t Timerless) Timer(time.Duration) *clock.Timer             { panic(t.Why) }
