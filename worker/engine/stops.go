package engine

import (
	"time"

	"github.com/tickwork/tickwork/internal/mutant"
)

// RepeatWindow is how soon after the first request to stop the same
// request again counts as a repeat of it: timeout(1) and a terminal
// signal the process and then its group, so one request arrives twice
// within microseconds.
const RepeatWindow = time.Second

// StopVerdict is what one request to stop a runner means.
type StopVerdict uint8

// The verdicts of StopRequests.Judge.
const (
	StopBegin   StopVerdict = iota + 1 // the first: stop reserving and drain (InStop)
	StopRepeat                         // the first again within RepeatWindow: nothing more
	StopAbandon                        // a second request: give the drain up (InAbandon)
	StopAgain                          // after the drain was abandoned: nothing more to give up
)

// StopRequests judges the requests to stop a process's runners (its
// signals, by name) one after another: the first stops them, the same
// request again within RepeatWindow is the same request, and any other
// (another signal, or the same one later) abandons the drain. The driver
// hands it the monotonic local time; it reads no clock.
type StopRequests struct {
	first     string
	at        time.Time
	begun     bool
	abandoned bool
}

// Judge returns what the request name, received at now, means.
func (r *StopRequests) Judge(name string, now time.Time) StopVerdict {
	switch {
	case !r.begun:
		r.first, r.at, r.begun = name, now, true
		return StopBegin
	case r.abandoned:
		return StopAgain
	case name == r.first && now.Sub(r.at) < RepeatWindow && !mutant.On(mutant.StopRepeatAbandons):
		return StopRepeat
	}
	r.abandoned = true
	return StopAbandon
}
