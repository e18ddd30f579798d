package interleave

import (
	"slices"
	"testing"

	"github.com/tickwork/tickwork/clockrng"
)

// picks runs a scheduler over steps where actors a, b and c each always
// have a round trip pending, and returns the actor picked at each step.
func picks(s Scheduler, steps int) []string {
	pending := []Pending{{Conn: "a#0"}, {Conn: "b#0"}, {Conn: "c#1"}}
	var out []string
	for range steps {
		out = append(out, actorOf(pending[s.Pick(pending)].Conn))
	}
	return out
}

// changes counts the steps where the pick differs from the one before.
func changes(seq []string) int {
	n := 0
	for i := 1; i < len(seq); i++ {
		if seq[i] != seq[i-1] {
			n++
		}
	}
	return n
}

// TestPCT: with depth d the highest-priority actor runs until one of the
// d−1 change points demotes it, so the pick changes at most d−1 times
// when every actor is always pending; the same seed picks the same way.
func TestPCT(t *testing.T) {
	leaders, switched := map[string]bool{}, 0
	for seed := uint64(1); seed <= 20; seed++ {
		one := picks(PCT(clockrng.NewRand(seed), 1, 30), 30)
		if changes(one) != 0 {
			t.Fatalf("seed %d: depth 1 switched actors: %v", seed, one)
		}
		leaders[one[0]] = true
		three := picks(PCT(clockrng.NewRand(seed), 3, 30), 30)
		if changes(three) > 0 {
			switched++
		}
		if changes(three) > 2 {
			t.Fatalf("seed %d: depth 3 switched %d times: %v", seed, changes(three), three)
		}
		if again := picks(PCT(clockrng.NewRand(seed), 3, 30), 30); !slices.Equal(again, three) {
			t.Fatalf("seed %d: %v then %v", seed, three, again)
		}
	}
	if switched == 0 {
		t.Fatal("depth 3 never switched actors in 20 seeds")
	}
	if len(leaders) < 2 {
		t.Fatalf("20 seeds gave the first turn to %v only", leaders)
	}
}
