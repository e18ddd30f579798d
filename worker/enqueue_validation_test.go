package worker

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestEnqueueRefusesWhatTheDatabaseCannotStore: a queue name PostgreSQL's
// text cannot hold and a time past its range are validation errors from
// the library, the same on both stores, not a raw SQLSTATE.
func TestEnqueueRefusesWhatTheDatabaseCannotStore(t *testing.T) {
	memStore, _ := newMemClient(t)
	for name, st := range map[string]store.Store{"mem": memStore, "pg": pgtest.Open(t, nil)} {
		c := NewClient(st, clockrng.NewRand(1))
		for what, opts := range map[string][]EnqueueOption{
			"NUL in the queue":      {WithQueue("mail\x00")},
			"invalid UTF-8 queue":   {WithQueue("mail\xff")},
			"a time in year 300000": {WithScheduledAt(time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC))},
		} {
			_, err := Enqueue(context.Background(), c, email{To: "a@example.com"}, opts...)
			if !errors.Is(err, store.ErrInvalid) || strings.Contains(err.Error(), "SQLSTATE") {
				t.Errorf("%s: enqueue with %s = %v, want a validation error (ErrInvalid)", name, what, err)
				continue
			}
			if strings.Contains(err.Error(), "00000000000000000000000000") {
				t.Errorf("%s: enqueue with %s names a job id that does not exist: %v", name, what, err)
			}
		}
		if rows := listJobs(t, st, store.JobFilter{}); len(rows) != 0 {
			t.Errorf("%s: refused enqueues wrote %d jobs", name, len(rows))
		}
	}
}
