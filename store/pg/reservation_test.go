package pg

import (
	"strings"
	"testing"
)

// TestIsReservation: the reservation is recognised as the server reports
// it, schema spelled out and cut at track_activity_query_size, and no
// other statement of the job path is, not even those that lock jobs.
func TestIsReservation(t *testing.T) {
	s := &Store{ident: `"tickwork_x"`}
	reserve := s.sql(reserveSQL)
	if len(reserve) <= 1024 {
		t.Fatalf("the reservation is %d bytes: the cut below shows nothing", len(reserve))
	}
	plain := s.sql(plainReserveSQL)
	for _, stmt := range []string{reserveSQL, reserve, reserve[:1023], strings.Replace(reserveSQL, "SKIP LOCKED", "", 1),
		plainReserveSQL, plain, plain[:min(len(plain), 1023)], strings.Replace(plainReserveSQL, jobsSkipLocked, jobsLocked, 1)} {
		if !IsReservation(stmt) {
			t.Errorf("not recognised as the reservation: %.80q", stmt)
		}
	}
	for _, stmt := range []string{lockQueuesSQL, limitLockSQL, completeSQL, takeLeaseSQL, runningJobsSQL, dutyLockSQL, ""} {
		if IsReservation(stmt) || IsReservation(s.sql(stmt)) {
			t.Errorf("taken for the reservation: %.80q", stmt)
		}
	}
}
