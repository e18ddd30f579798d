// Package picture draws one simulated run (or any recorded history) as a
// self-contained HTML page: a lane per worker incarnation, a bar per
// execution from reservation to result coloured by outcome, the leader's
// terms as a band, faults as markers and, for a failing seed, the violation
// with the trace lines before it and the command that replays it.
//
// It reads only the history (props) and the trace text, so the same page can
// show a live run's history. The output is deterministic: the same input
// gives the same bytes.
package picture

import (
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
)

// Input is what the page shows.
type Input struct {
	Title  string    // e.g. "seed 42, mutant no-rescue"
	Start  time.Time // time zero of the axis; zero means the first event's
	Header []string  // the options derived from the seed, one per line
	Events []props.Event
	// Names gives rows their trace names (j12, w0.1); ids without one are
	// shown abbreviated.
	Names map[ulid.ULID]string
	// Trace is the full trace, one line per event ("  12.000000 w1 STALL
	// for 3s"); faults that are not history events (stalls, outages, clock
	// jumps, store errors) are read from it.
	Trace []string

	// For a failing run: the violation, its report with names, the trace
	// lines up to it and the command that replays it.
	Violation *props.Violation
	Report    string
	Tail      []string
	Replay    string

	ids *strings.Replacer // set by Write
}

// namer writes the ids in a text (a failure reason) as their names. The
// ids all have the same length, so at most one matches at a position and
// the order of the pairs does not matter.
func (in *Input) namer() *strings.Replacer {
	pairs := make([]string, 0, 2*len(in.Names))
	for id, n := range in.Names {
		pairs = append(pairs, id.String(), n)
	}
	return strings.NewReplacer(pairs...)
}
