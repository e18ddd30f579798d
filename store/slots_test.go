package store

import (
	"slices"
	"testing"
)

// A limit shares its places out among at most MaxRunSlots slots, evenly
// but for one place more in the first ones.
func TestRunSlotPlaces(t *testing.T) {
	for _, n := range []int{1, 3, 63, 64, 65, 100, 1000, 1_000_000} {
		places := RunSlotPlaces(n)
		sum := 0
		for _, p := range places {
			sum += p
		}
		if len(places) != min(n, MaxRunSlots) || sum != n {
			t.Errorf("limit %d: %d slots with %d places in all, want %d with %d", n, len(places), sum, min(n, MaxRunSlots), n)
		}
		if !slices.IsSortedFunc(places, func(a, b int) int { return b - a }) || places[0]-places[len(places)-1] > 1 {
			t.Errorf("limit %d: places %v, want them even, the larger first", n, places)
		}
	}
	if got := RunSlotPlaces(0); len(got) != 0 {
		t.Errorf("no limit: slots %v, want none", got)
	}
}

// With fewer slots than MaxRunSlots (the simulator's two), small limits
// share out as large ones do.
func TestRunSlotPlacesIn(t *testing.T) {
	for _, c := range []struct {
		n, slots int
		want     []int
	}{{1, 2, []int{1}}, {2, 2, []int{1, 1}}, {3, 2, []int{2, 1}}, {5, 2, []int{3, 2}}, {65, MaxRunSlots, RunSlotPlaces(65)}} {
		if got := RunSlotPlacesIn(c.n, c.slots); !slices.Equal(got, c.want) {
			t.Errorf("RunSlotPlacesIn(%d, %d) = %v, want %v", c.n, c.slots, got, c.want)
		}
	}
}

// The running jobs fill the slots in order, each as many as its places;
// those beyond every place go into every slot.
func TestRunSlotJobs(t *testing.T) {
	for _, c := range []struct {
		running []int
		places  []int
		want    [][]int
	}{
		{[]int{1, 2, 3}, []int{2, 2}, [][]int{{1, 2}, {3}}},
		{[]int{1, 2, 3, 4, 5, 6}, []int{2, 2}, [][]int{{1, 2, 5, 6}, {3, 4, 5, 6}}},
		{nil, []int{1, 1, 1}, [][]int{nil, nil, nil}},
		{[]int{1, 2}, []int{1}, [][]int{{1, 2}}},
	} {
		got := RunSlotJobs(c.running, c.places)
		if !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("RunSlotJobs(%v, %v) = %v, want %v", c.running, c.places, got, c.want)
		}
	}
}
