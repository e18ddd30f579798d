package props

import (
	"slices"
	"strings"
	"testing"
)

func TestReservationWaits(t *testing.T) {
	reserves := func(s string) bool { return strings.Contains(s, "FOR UPDATE") }
	live := LockWait{Conn: "a#0", Statement: "SELECT ... FROM workers ... FOR SHARE", On: []string{"leader#0"}}
	reserve := LockWait{Conn: "b#0", Statement: "SELECT id FROM jobs ... FOR UPDATE", On: []string{"a#0"}}
	if got := ReservationWaits([]LockWait{live}, reserves); len(got) != 0 {
		t.Fatalf("a liveness check's wait was reported: %v", got)
	}
	got := ReservationWaits([]LockWait{live, reserve}, reserves)
	if len(got) != 1 || got[0].Conn != "b#0" || !slices.Equal(got[0].On, []string{"a#0"}) {
		t.Fatalf("got %v, want the reservation's wait on a#0", got)
	}
}
