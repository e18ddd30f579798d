package sim

import "testing"

// TestEveryMarkIsDescribed: each coverage mark has a description of its own,
// and exactly the interleaving marks count as reachable only interleaved.
func TestEveryMarkIsDescribed(t *testing.T) {
	seen := map[string]Mark{}
	for _, m := range AllMarks() {
		d := m.String()
		if d == "" {
			t.Errorf("mark %d has no description", int(m))
		}
		if o, dup := seen[d]; dup {
			t.Errorf("marks %d and %d are both described %q", int(o), int(m), d)
		}
		seen[d] = m
	}
	interleaved := map[Mark]bool{MarkTxOverlap: true, MarkLockWait: true, MarkDeadlock: true,
		MarkTripSevered: true, MarkTripTerminated: true, MarkCommitAnswerLost: true,
		MarkRenewBesideTakeOver: true, MarkResignBesideLease: true, MarkLeaseContended: true, MarkDutiesBesideLease: true}
	for _, m := range AllMarks() {
		if m.Interleaved() != interleaved[m] {
			t.Errorf("mark %q: Interleaved() = %v, want %v", m, m.Interleaved(), interleaved[m])
		}
	}
	var all Marks
	for _, m := range AllMarks() {
		all.set(m)
		if !all.Has(m) {
			t.Errorf("a set of marks loses %q", m)
		}
	}
}
