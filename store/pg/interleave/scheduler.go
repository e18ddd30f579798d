package interleave

import (
	"strings"

	"github.com/tickwork/tickwork/clockrng"
)

// Pending is a round trip parked at the gate.
type Pending struct {
	Conn       string   // label#n
	Statements []string // as in Event
	// Commits: the round trip ends a transaction, so its answer is the
	// one a lost connection leaves in doubt (ReleaseLosingAnswer). See
	// commits.
	Commits bool
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

// PCT returns a Scheduler after probabilistic concurrency testing
// (Burckhardt et al., ASPLOS 2010): each actor gets a random priority when
// first seen, the pending round trip of the highest-priority actor goes
// next, and at depth−1 steps drawn from [0, steps) the actor that just
// went drops below all others. A race that needs d orderings among k
// steps of n actors is then hit with probability at least 1/(n·k^(d−1))
// per seed, where uniform choices may make a deep order far rarer; steps
// is an estimate of a run's length in round trips.
func PCT(r *clockrng.Rand, depth, steps int) Scheduler {
	p := &pct{r: r, prio: map[string]uint64{}, change: map[int]bool{}, low: uint64(depth), base: uint64(depth) + 1}
	for range max(depth-1, 0) {
		p.change[r.IntN(max(steps, 1))] = true
	}
	return p
}

type pct struct {
	r      *clockrng.Rand
	prio   map[string]uint64 // actor -> priority; at least base until demoted
	change map[int]bool      // steps after which the actor that went is demoted
	low    uint64            // the next demoted priority, below every other
	base   uint64
	step   int
}

func (p *pct) Pick(pending []Pending) int {
	best := -1
	for i, c := range pending {
		actor := actorOf(c.Conn)
		if _, ok := p.prio[actor]; !ok {
			p.prio[actor] = p.base + p.r.Uint64()>>1
		}
		if best < 0 || p.prio[actor] > p.prio[actorOf(pending[best].Conn)] {
			best = i
		}
	}
	if p.change[p.step] {
		p.prio[actorOf(pending[best].Conn)] = p.low
		p.low--
	}
	p.step++
	return best
}

// actorOf is the label of a connection id "label#n".
func actorOf(conn string) string {
	label, _, _ := strings.Cut(conn, "#")
	return label
}
