package mem

import (
	"fmt"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/format"
	"github.com/tickwork/tickwork/store"
)

// checkCommit asserts, as a transaction commits, that every row it wrote
// agrees with itself (a status and its timestamps) and with the indexes
// the store keeps beside the rows. A broken invariant is a bug in this
// store: it panics with the rows that broke it rather than let a later
// read see them. Only the changed rows are checked, so a commit costs in
// proportion to what it wrote. Times are not compared with each other:
// the store's clock is supplied and may jump back.
func (t *tx) checkCommit() {
	var broken []string
	for _, c := range t.jobs {
		id := c.ID()
		j := t.s.jobs[id]
		if j == nil {
			continue // deleted later in the transaction, or now
		}
		if why := jobDisagrees(j); why != "" {
			broken = append(broken, why+": "+store.FormatJob(*j))
		}
		if running := j.Status == store.Running; running != t.s.indexedRunning(j.StartedBy, id) {
			broken = append(broken, fmt.Sprintf("the running index disagrees with the row (running %v): %s", running, store.FormatJob(*j)))
		}
		if n := t.s.runningIn[j.Queue]; n < 0 || (j.Status == store.Running && n == 0) {
			broken = append(broken, fmt.Sprintf("queue %q counts %d running rows: %s", j.Queue, n, store.FormatJob(*j)))
		}
	}
	for _, c := range t.queues {
		if q := c.After; q != nil && !q.NeedsRow() {
			broken = append(broken, fmt.Sprintf("queue row %+v controls nothing: it should have been deleted", *q))
		}
	}
	for _, c := range t.workers {
		if w := c.After; w != nil && (w.RegisteredAt.IsZero() || w.LastSeenAt.IsZero()) {
			broken = append(broken, fmt.Sprintf("worker %s without registered_at or last_seen_at: %+v", w.ID, *w))
		}
	}
	if l := t.s.lease; t.lease != nil && l != nil && (l.WorkerID.IsZero() || l.ExpiresAt.IsZero()) {
		broken = append(broken, "lease "+format.Lease(l.WorkerID, l.ElectedAt, l.ExpiresAt)+" has no holder or no expiry")
	}
	if len(broken) > 0 {
		panic(fmt.Sprintf("store/mem: invariant broken at the commit of %s: %s", format.Time(t.now), strings.Join(broken, "; ")))
	}
}

// jobDisagrees says how a row's status contradicts its other columns, or
// returns "".
func jobDisagrees(j *store.Job) string {
	ended := !j.CompletedAt.IsZero() || !j.FailedAt.IsZero() || !j.CancelledAt.IsZero()
	switch {
	case j.CreatedAt.IsZero() || j.ScheduledAt.IsZero():
		return "no created_at or scheduled_at"
	case j.NextAttemptID != (ulid.ULID{}) && j.Status != store.Failed && j.Status != store.Lost && j.Status != store.Snoozed:
		return "a next attempt on a row that did not fail or snooze"
	case len(j.Parents) > 0 && j.Status != store.Waiting:
		return "parents on a row that does not wait"
	case j.Status == store.Waiting && len(j.Parents) == 0 && j.CallbackOf != j.ID:
		return "a waiting row without parents that is no batch's callback"
	}
	switch j.Status {
	case store.Scheduled, store.Available, store.Waiting:
		if ended || !j.StartedAt.IsZero() {
			return "a waiting row with a start or an end"
		}
	case store.Running:
		if ended || j.StartedAt.IsZero() {
			return "a running row without a start or with an end"
		}
	case store.Completed:
		if j.CompletedAt.IsZero() || !j.FailedAt.IsZero() || j.StartedAt.IsZero() {
			return "a completed row without completed_at or a start, or with failed_at"
		}
	case store.Snoozed:
		if j.CompletedAt.IsZero() || !j.FailedAt.IsZero() || j.StartedAt.IsZero() || j.Output != nil {
			return "a snoozed row without completed_at or a start, or with failed_at or an output"
		}
	case store.Failed, store.Lost:
		if j.FailedAt.IsZero() || !j.CompletedAt.IsZero() || j.StartedAt.IsZero() {
			return "a failed row without failed_at or a start, or with completed_at"
		}
	case store.Cancelled:
		if j.CancelledAt.IsZero() {
			return "a cancelled row without cancelled_at"
		}
	default:
		return "an unknown status"
	}
	return ""
}

// indexedRunning reports whether the running index lists id under worker.
func (s *Store) indexedRunning(worker, id ulid.ULID) bool {
	_, found := slices.BinarySearchFunc(s.running[worker], id, ulid.ULID.Compare)
	return found
}
