package clockrng

import (
	"bytes"
	"slices"
	"testing"
	"time"
)

func draw(r *Rand, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = r.Uint64()
	}
	return out
}

func TestSameSeedSameSequence(t *testing.T) {
	a, b := NewRand(42), NewRand(42)
	if !slices.Equal(draw(a, 100), draw(b, 100)) {
		t.Fatal("two sources with seed 42 differ")
	}
	if slices.Equal(draw(NewRand(42), 10), draw(NewRand(43), 10)) {
		t.Fatal("seeds 42 and 43 give the same sequence")
	}
	if NewRand(42).Seed() != 42 {
		t.Fatal("Seed does not return the seed")
	}
}

func TestSameSeedSameDerivedValues(t *testing.T) {
	a, b := NewRand(7), NewRand(7)
	for i := range 200 {
		if x, y := a.IntN(1000), b.IntN(1000); x != y {
			t.Fatalf("IntN draw %d: %d != %d", i, x, y)
		}
		if x, y := a.Float64(), b.Float64(); x != y {
			t.Fatalf("Float64 draw %d: %v != %v", i, x, y)
		}
		if x, y := a.Chance(0.5), b.Chance(0.5); x != y {
			t.Fatalf("Chance draw %d differs", i)
		}
		if x, y := a.DurationBetween(time.Second, time.Minute), b.DurationBetween(time.Second, time.Minute); x != y {
			t.Fatalf("DurationBetween draw %d: %v != %v", i, x, y)
		}
	}
	pa, pb := make([]byte, 37), make([]byte, 37)
	if _, err := a.Read(pa); err != nil {
		t.Fatal(err)
	}
	_, _ = b.Read(pb)
	if !bytes.Equal(pa, pb) || bytes.Equal(pa, make([]byte, 37)) {
		t.Fatalf("Read: %x vs %x", pa, pb)
	}
}

func TestChildIndependentOfDraws(t *testing.T) {
	quiet := NewRand(1)
	want := draw(quiet.Child("worker"), 50)

	busy := NewRand(1)
	draw(busy, 1000)
	sibling := busy.Child("faults")
	draw(sibling, 1000)
	if got := draw(busy.Child("worker"), 50); !slices.Equal(got, want) {
		t.Fatal("a child's sequence depends on how much its parent and siblings drew")
	}
	if slices.Equal(draw(NewRand(1).Child("faults"), 50), want) {
		t.Fatal("children with different labels share a sequence")
	}
	if slices.Equal(draw(NewRand(2).Child("worker"), 50), want) {
		t.Fatal("children of different seeds share a sequence")
	}
	if slices.Equal(draw(NewRand(1), 50), want) {
		t.Fatal("a child repeats its parent")
	}
}

func TestChildN(t *testing.T) {
	r := NewRand(9)
	seen := map[uint64]int{}
	for n := range 100 {
		first := r.ChildN("w", n).Uint64()
		if prev, dup := seen[first]; dup {
			t.Fatalf("ChildN %d and %d start alike", prev, n)
		}
		seen[first] = n
	}
	if !slices.Equal(draw(NewRand(9).ChildN("w", 3), 20), draw(r.ChildN("w", 3), 20)) {
		t.Fatal("ChildN is not reproducible")
	}
}

func TestDurationBetween(t *testing.T) {
	r := NewRand(3)
	lo, hi := 900*time.Millisecond, 1100*time.Millisecond
	sawLow, sawHigh := false, false
	for range 10000 {
		d := r.DurationBetween(lo, hi)
		if d < lo || d > hi {
			t.Fatalf("DurationBetween(%v, %v) = %v", lo, hi, d)
		}
		sawLow = sawLow || d < lo+20*time.Millisecond
		sawHigh = sawHigh || d > hi-20*time.Millisecond
	}
	if !sawLow || !sawHigh {
		t.Fatal("DurationBetween does not cover its range")
	}
	if got := r.DurationBetween(hi, lo); got != hi {
		t.Fatalf("DurationBetween(hi, lo) = %v, want hi", got)
	}
	if got := r.DurationBetween(lo, lo); got != lo {
		t.Fatalf("DurationBetween(lo, lo) = %v", got)
	}
}

func TestChildIntoDrawsAsChild(t *testing.T) {
	parent, dst := NewRand(5), NewRand(99)
	for _, label := range []string{"job/a", "job/b"} {
		draw(dst, 7) // what dst drew before is forgotten
		parent.ChildInto(dst, label)
		if got, want := draw(dst, 30), draw(parent.Child(label), 30); !slices.Equal(got, want) {
			t.Fatalf("ChildInto(%q) draws %v, Child draws %v", label, got, want)
		}
		if dst.Seed() != parent.Child(label).Seed() {
			t.Fatalf("ChildInto(%q) has seed %d, Child %d", label, dst.Seed(), parent.Child(label).Seed())
		}
	}
	var zero Rand // a zero Rand is ready once ChildInto made it a child
	parent.ChildInto(&zero, "job/c")
	if !slices.Equal(draw(&zero, 5), draw(parent.Child("job/c"), 5)) {
		t.Fatal("ChildInto into a zero Rand draws otherwise than Child")
	}
}
