package mem

import (
	"context"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/testpanic"
	"github.com/tickwork/tickwork/store"
)

// A commit that leaves a row contradicting its status, or a row its
// indexes do not list, panics with the row.
func TestCommitChecksInvariants(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	worker, id := ulid.Make(), ulid.Make()
	for _, c := range []struct {
		name, want string
		write      func(*tx)
	}{
		{"running without a start", "a running row without a start", func(t *tx) {
			t.setJob(nil, &store.Job{ID: id, Queue: "q", Status: store.Running, StartedBy: worker, CreatedAt: now, ScheduledAt: now})
		}},
		{"completed without completed_at", "a completed row without completed_at", func(t *tx) {
			t.setJob(nil, &store.Job{ID: id, Queue: "q", Status: store.Completed, StartedAt: now, CreatedAt: now, ScheduledAt: now})
		}},
		{"index out of step", "the running index disagrees", func(t *tx) {
			t.setJob(nil, &store.Job{ID: id, Queue: "q", Status: store.Running, StartedBy: worker, StartedAt: now, CreatedAt: now, ScheduledAt: now})
			t.s.running[worker] = nil // an index write lost
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(func() time.Time { return now })
			testpanic.Want(t, c.want, func() {
				_ = s.InTx(context.Background(), func(stx store.Tx) error { c.write(stx.(*tx)); return nil })
			})
		})
	}
}
