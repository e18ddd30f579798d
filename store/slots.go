package store

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// A rate-limited queue admits each start through one of its Rate slots.
// A slot holds the store time of the last start it admitted (zero: none)
// and admits the next one only when RatePeriod has passed since: a start
// at t needs a slot whose last start is at or before t − RatePeriod. Each
// slot thus admits at most one start in any window of RatePeriod, and the
// queue at most Rate. Slots are claimed with FOR UPDATE SKIP LOCKED on
// PostgreSQL, so concurrent reservations never wait on each other.

// SlotFree reports whether a slot whose last start was last admits a
// start at store time now under period.
func SlotFree(last, now time.Time, period time.Duration) bool {
	return last.IsZero() || !last.After(now.Add(-period))
}

// ResizeRateSlots returns the slots a queue keeps when its rate becomes
// n: the n latest of its slots' last starts, latest first, then empty
// slots (zero times) up to n. Keeping the latest starts means a rate
// lowered right after a burst admits nothing more until the burst's starts
// leave the window.
func ResizeRateSlots(last []time.Time, n int) []time.Time {
	kept := slices.SortedFunc(slices.Values(last), func(a, b time.Time) int { return b.Compare(a) })
	if len(kept) > n {
		kept = kept[:n]
	}
	for len(kept) < n {
		kept = append(kept, time.Time{})
	}
	return kept
}

// FormatRate prints n starts per period as the CLI reads it: 100/1m.
func FormatRate(n int, period time.Duration) string {
	return fmt.Sprintf("%d/%s", n, FormatPeriod(period))
}

// FormatPeriod prints a duration without its zero minutes and seconds:
// 1m, 1h30m, 1.5s.
func FormatPeriod(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// A limited queue admits each running job through one of its run slots
// (store/pg: rows of queue_run_slots). A slot has places, holds the jobs it
// was given, and has a free place for each of its places beyond its jobs
// still running, which a reservation checks against the rows themselves:
// completions, failures, rescues and cancels need not touch the slots. A
// reservation puts each job it starts in a free place, so the queue runs
// at most its Limit, the sum of the places. Up to MaxRunSlots the slots
// have one place each; a larger limit shares its places among
// MaxRunSlots slots, so that a reservation of many jobs writes a few slots
// instead of one per job (with one place per slot the slots' work had
// cost a limited queue a third of its throughput).

// MaxRunSlots bounds the run slots of a queue (store/pg's claimRunSlotsSQL
// writes the same number).
const MaxRunSlots = 64

// RunSlotPlaces returns the places of each run slot of a queue limited to
// n: min(n, MaxRunSlots) slots, the first ones a place larger when n does
// not share out evenly.
func RunSlotPlaces(n int) []int { return RunSlotPlacesIn(n, MaxRunSlots) }

// RunSlotPlacesIn is RunSlotPlaces with at most maxSlots slots instead of
// MaxRunSlots: the simulator's in-memory store takes a handful, so that
// the small limits it draws give slots several places, as limits above
// MaxRunSlots do in production.
func RunSlotPlacesIn(n, maxSlots int) []int {
	slots := min(n, maxSlots)
	places := make([]int, slots)
	for i := range places {
		places[i] = n / slots
		if i < n%slots {
			places[i]++
		}
	}
	return places
}

// RunSlotJobs returns the jobs of each of a queue's run slots, of the
// given places, when its limit is set with running (sorted by id) already
// running: the slots take running in order, each as many as it has
// places, and every slot holds the surplus beyond all the places as well,
// so that a limit set below what runs admits nothing more until the
// surplus has finished, and then as many jobs per slot as its own have.
func RunSlotJobs[ID any](running []ID, places []int) [][]ID {
	slots := make([][]ID, len(places))
	next := 0
	for i, n := range places {
		k := min(n, len(running)-next)
		slots[i] = append(slots[i], running[next:next+k]...)
		next += k
	}
	for i := range slots {
		slots[i] = append(slots[i], running[next:]...)
	}
	return slots
}
