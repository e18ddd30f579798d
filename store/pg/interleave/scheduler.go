package interleave

import "github.com/tickwork/tickwork/clockrng"

// Pending is a round trip parked at the gate.
type Pending struct {
	Conn       string   // label#n
	Statements []string // as in Event
}

// Scheduler picks which pending round trip goes next. It is given them in
// connection order and must decide from them and its own seeded state only.
type Scheduler interface {
	Pick(pending []Pending) int
}

// Random returns a Scheduler that picks uniformly with r.
func Random(r *clockrng.Rand) Scheduler { return random{r} }

type random struct{ r *clockrng.Rand }

func (s random) Pick(pending []Pending) int { return s.r.IntN(len(pending)) }
