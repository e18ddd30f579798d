package props

import (
	"fmt"
	"strings"
	"time"
)

// Property 36, bulk actions: an operator's bulk action (worker.Client.Bulk)
// runs as batches, one transaction each, and every commit of a batch
// carries its request (Event.Bulk). Each batch
//
//   - acts only on rows its filter selected at the batch's store time:
//     of the queue and status asked for, created more than OlderThan
//     before it, with the text in their payload;
//   - acts only as its action may: a delete removes only rows that ended
//     (never one whose handler runs) and changes no row it keeps, a cancel
//     ends only rows that had not ended, a retry chains only a last
//     attempt that failed or was lost;
//   - acts on at most BatchSize rows, so that no transaction holds more
//     row locks than that;
//   - changes nothing in a dry run.
//
// A row is acted on when the batch deletes it (delete), cancels it without
// a reason (cancel: a row cancelled because a parent ended names the
// parent), or sets its next attempt (retry). Rows that change only as a
// consequence (a retry's new row) are not judged here.

// BulkRequest is what a bulk action was asked: Action is "retry", "cancel"
// or "delete"; the zero filter fields select every row.
type BulkRequest struct {
	Action    string
	Queue     string        `json:",omitzero"`
	Status    Status        `json:",omitzero"`
	OlderThan time.Duration `json:",omitzero"`
	Text      string        `json:",omitzero"`
	DryRun    bool          `json:",omitzero"`
	BatchSize int
}

// operatorRetry reports whether commit e is a batch of a bulk retry: the
// retries it makes are an operator's, not bound by the retry policy.
func (e *Event) operatorRetry() bool { return e.Bulk != nil && e.Bulk.Action == "retry" }

// checkBulk judges commit e, a batch of the bulk action e.Bulk.
func (c *Checker) checkBulk(e *Event) {
	b := e.Bulk
	if b.DryRun && len(e.Jobs) > 0 {
		c.report(BulkActions, fmt.Sprintf("a dry run of bulk %s changed %d job rows", b.Action, len(e.Jobs)),
			withJobs(rowsOf(e.Jobs)...))
		return
	}
	acted := 0
	for _, ch := range e.Jobs {
		if ch.Before == nil {
			continue // a retry's new row
		}
		if !b.acts(ch) {
			if b.Action == "delete" {
				c.report(BulkActions, fmt.Sprintf("bulk delete changed job %s without deleting it", ch.Before.ID),
					withJobs(*ch.Before, *ch.After))
			}
			continue
		}
		acted++
		c.checkBulkRow(e, ch.Before)
	}
	if acted > b.BatchSize {
		c.report(BulkActions, fmt.Sprintf("a batch of bulk %s acted on %d jobs, more than its batch size %d", b.Action, acted, b.BatchSize),
			withJobs(rowsOf(e.Jobs)...))
	}
}

// acts reports whether change ch, of a row that existed, is the action's
// own.
func (b *BulkRequest) acts(ch JobChange) bool {
	before, after := ch.Before, ch.After
	switch b.Action {
	case "delete":
		return after == nil
	case "cancel":
		return after != nil && before.Status != Cancelled && after.Status == Cancelled && after.FailedReason == ""
	case "retry":
		return after != nil && before.NextAttemptID.IsZero() && !after.NextAttemptID.IsZero()
	}
	return false
}

// checkBulkRow judges one row the batch of commit e acted on, as it was
// before.
func (c *Checker) checkBulkRow(e *Event, r *JobRow) {
	b := e.Bulk
	if why := b.unselected(r, e.Time); why != "" {
		c.report(BulkActions, fmt.Sprintf("bulk %s acted on job %s, which its filter did not select: %s", b.Action, r.ID, why),
			withJobs(*r))
		return
	}
	var may bool
	switch b.Action {
	case "delete":
		may = r.Status.Terminal()
	case "cancel":
		may = !r.Status.Terminal()
	case "retry":
		may = r.Status == Failed || r.Status == Lost
	}
	if !may {
		c.report(BulkActions, fmt.Sprintf("bulk %s acted on job %s, which was %s", b.Action, r.ID, r.Status), withJobs(*r))
	}
}

// unselected returns which part of the filter row r fails at store time
// now, "" when it is selected.
func (b *BulkRequest) unselected(r *JobRow, now time.Time) string {
	switch {
	case b.Queue != "" && r.Queue != b.Queue:
		return fmt.Sprintf("its queue is %q, not %q", r.Queue, b.Queue)
	case b.Status != "" && r.Status != b.Status:
		return fmt.Sprintf("its status is %s, not %s", r.Status, b.Status)
	case b.OlderThan != 0 && !r.CreatedAt.Before(now.Add(-b.OlderThan)):
		return fmt.Sprintf("created at %s, not more than %v before %s", formatTime(r.CreatedAt), b.OlderThan, formatTime(now))
	case !strings.Contains(r.Payload, b.Text):
		return fmt.Sprintf("its payload %s lacks %q", r.Payload, b.Text)
	}
	return ""
}

// rowsOf returns the rows of changes, each as it was before (after, for
// an insert), for a report.
func rowsOf(chs []JobChange) []JobRow {
	out := make([]JobRow, 0, len(chs))
	for _, ch := range chs {
		if ch.Before != nil {
			out = append(out, *ch.Before)
		} else {
			out = append(out, *ch.After)
		}
	}
	return out
}
