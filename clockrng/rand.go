package clockrng

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
	"time"
)

// Rand is a seeded source of randomness. Two sources made from the same seed
// produce the same sequence. A Rand is not safe for concurrent use; give each
// goroutine its own Child.
type Rand struct {
	seed uint64
	pcg  rand.PCG
	rng  rand.Rand // draws from pcg
}

// NewRand returns a source seeded with seed.
func NewRand(seed uint64) *Rand {
	r := &Rand{seed: seed, pcg: *rand.NewPCG(seed, mix(seed))}
	r.rng = *rand.New(&r.pcg) // one allocation for the three: a simulation makes many
	return r
}

// NewRandFromOS returns a source seeded from the operating system's
// randomness (crypto/rand), for production processes: ids drawn by
// different processes then do not collide. Its sequence cannot be
// reproduced unless its Seed is recorded; simulations use NewRand.
func NewRandFromOS() *Rand {
	var b [8]byte
	_, _ = crand.Read(b[:]) // crypto/rand.Read never returns an error
	return NewRand(binary.LittleEndian.Uint64(b[:]))
}

// Seed returns the seed this source was made from.
func (r *Rand) Seed() uint64 { return r.seed }

// Child returns an independent source named label. Its sequence depends only
// on this source's seed and the label, never on how much this source or its
// other children have drawn, so adding draws in one part of a simulation does
// not perturb another.
func (r *Rand) Child(label string) *Rand {
	return r.child(fnv64a(fnvOffset, label))
}

// ChildN is Child with a numeric label, for per-worker or per-run sources:
// Child(label + "/" + n's eight bytes, little-endian).
func (r *Rand) ChildN(label string, n int) *Rand {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(n))
	return r.child(fnv64a(fnv64a(fnvOffset, label+"/"), string(b[:])))
}

func (r *Rand) child(labelHash uint64) *Rand { return NewRand(mix(r.seed ^ mix(labelHash))) }

// ChildInto makes dst draw what Child(label) would, reusing dst instead of
// allocating a source: for a child drawn from once per simulated job and
// then dropped. Whatever dst drew before is forgotten.
func (r *Rand) ChildInto(dst *Rand, label string) {
	seed := mix(r.seed ^ mix(fnv64a(fnvOffset, label)))
	dst.seed = seed
	dst.pcg.Seed(seed, mix(seed))
	dst.rng = *rand.New(&dst.pcg)
}

// fnvOffset and fnv64a are hash/fnv's 64-bit FNV-1a, without its
// allocations: children are drawn for every process and execution.
const fnvOffset = 14695981039346656037

func fnv64a(h uint64, s string) uint64 {
	for i := range len(s) {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Uint64 returns a uniformly distributed 64-bit value.
func (r *Rand) Uint64() uint64 { return r.rng.Uint64() }

// IntN returns a uniform value in [0, n). It panics if n <= 0.
func (r *Rand) IntN(n int) int { return r.rng.IntN(n) }

// Float64 returns a uniform value in [0, 1).
func (r *Rand) Float64() float64 { return r.rng.Float64() }

// Chance reports true with probability p.
func (r *Rand) Chance(p float64) bool { return r.rng.Float64() < p }

// DurationBetween returns a uniform duration in [lo, hi]. It returns lo when
// hi <= lo.
func (r *Rand) DurationBetween(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(r.rng.Int64N(int64(hi-lo)+1))
}

// Read fills p with random bytes; it never fails. It makes a Rand usable as
// ULID entropy.
func (r *Rand) Read(p []byte) (int, error) {
	for i := 0; i < len(p); i += 8 {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], r.rng.Uint64())
		copy(p[i:], b[:])
	}
	return len(p), nil
}

// mix is splitmix64's finaliser: it spreads nearby seeds far apart.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
