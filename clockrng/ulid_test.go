package clockrng

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

func TestULIDReproducesFromSeed(t *testing.T) {
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	a, b := NewRand(5), NewRand(5)
	for i := range 100 {
		x, y := NewULID(at, a), NewULID(at, b)
		if x != y {
			t.Fatalf("ULID %d: %s != %s from the same seed", i, x, y)
		}
	}
	if NewULID(at, NewRand(5)) == NewULID(at, NewRand(6)) {
		t.Fatal("different seeds give the same ULID")
	}
}

func TestULIDSortsByTime(t *testing.T) {
	r := NewRand(11)
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	prev := NewULID(start, r)
	for i := 1; i < 1000; i++ {
		at := start.Add(time.Duration(i) * time.Millisecond)
		id := NewULID(at, r)
		if id.Compare(prev) <= 0 {
			t.Fatalf("ULID at %s (%s) does not sort after the one a millisecond earlier (%s)", at, id, prev)
		}
		if got := ulid.Time(id.Time()); !got.Equal(at) {
			t.Fatalf("ULID time %s, want %s", got, at)
		}
		prev = id
	}
}

func TestULIDBeforeEpochPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewULID before 1970 did not panic")
		}
	}()
	NewULID(time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), NewRand(1))
}
