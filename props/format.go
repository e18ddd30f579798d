package props

import (
	"fmt"
	"strings"

	"github.com/oklog/ulid/v2"
)

// String renders the row on one line, naming only the fields that are set.
func (r JobRow) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s queue=%s attempt=%d created=%s scheduled=%s",
		r.ID, r.Status, r.Queue, r.Attempt, formatTime(r.CreatedAt), formatTime(r.ScheduledAt))
	if !r.StartedAt.IsZero() || !r.StartedBy.IsZero() {
		fmt.Fprintf(&b, " started=%s by=%s", formatTime(r.StartedAt), formatID(r.StartedBy))
	}
	if !r.CompletedAt.IsZero() {
		fmt.Fprintf(&b, " completed=%s", formatTime(r.CompletedAt))
	}
	if !r.FailedAt.IsZero() {
		fmt.Fprintf(&b, " failed=%s reason=%q", formatTime(r.FailedAt), r.FailedReason)
	}
	if !r.CancelledAt.IsZero() {
		fmt.Fprintf(&b, " cancelled=%s", formatTime(r.CancelledAt))
	}
	if !r.NextAttemptID.IsZero() {
		fmt.Fprintf(&b, " next=%s", r.NextAttemptID)
	}
	if r.ScheduleName != "" {
		fmt.Fprintf(&b, " schedule=%s", r.ScheduleName)
	}
	if r.MaxAttempts != 0 {
		fmt.Fprintf(&b, " max_attempts=%d", r.MaxAttempts)
	}
	if r.Snoozes != 0 {
		fmt.Fprintf(&b, " snoozes=%d", r.Snoozes)
	}
	if r.PartitionKey != "" {
		fmt.Fprintf(&b, " key=%q", r.PartitionKey)
	}
	if s := r.Sequence; s.Key != "" {
		fmt.Fprintf(&b, " seq=%q/%d continues=%t skipped=%t", s.Key, s.Pos, s.Continues, s.Skipped)
	}
	if r.Parents != "" || r.RunAnyway {
		fmt.Fprintf(&b, " parents=%s anyway=%t", r.Parents, r.RunAnyway)
	}
	if !r.Batch.IsZero() || !r.CallbackOf.IsZero() {
		fmt.Fprintf(&b, " batch=%s counted=%t callback-of=%s", r.Batch, r.BatchCounted, r.CallbackOf)
	}
	if r.DeadFrom != "" {
		fmt.Fprintf(&b, " dead-from=%q", r.DeadFrom)
	}
	return b.String()
}

// String renders the row on one line.
func (r WorkerRow) String() string {
	return fmt.Sprintf("%s registered=%s last_seen=%s shutdown=%s",
		r.ID, formatTime(r.RegisteredAt), formatTime(r.LastSeenAt), formatTime(r.ShutdownAt))
}

// String renders the row on one line.
func (r LeaseRow) String() string {
	return fmt.Sprintf("holder=%s elected=%s expires=%s",
		r.Holder, formatTime(r.ElectedAt), formatTime(r.ExpiresAt))
}

// String renders the row on one line.
func (r ScheduleRow) String() string {
	return fmt.Sprintf("%s last_scheduled=%s job=%s",
		r.Name, formatTime(r.LastScheduledAt), formatID(r.LastScheduledJobID))
}

// String renders the event on one line (a commit's rows follow, one per
// line, indented): the same text on every machine.
func (e Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s", e.Seq, formatTime(e.Time), e.Kind)
	if e.Process != "" {
		fmt.Fprintf(&b, " process=%s", e.Process)
	}
	if !e.Worker.IsZero() {
		fmt.Fprintf(&b, " worker=%s", e.Worker)
	}
	if !e.Job.IsZero() {
		fmt.Fprintf(&b, " job=%s", e.Job)
	}
	if e.Decision != "" {
		fmt.Fprintf(&b, " decision=%s", e.Decision)
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, " reason=%q", e.Reason)
	}
	if e.Snooze != 0 {
		fmt.Fprintf(&b, " snooze=%v", e.Snooze)
	}
	if e.Queue != "" {
		fmt.Fprintf(&b, " queue=%s", e.Queue)
	}
	if e.Kind == ShutdownAbandoned || e.Kind == ReleaseAbandoned || e.Kind == Waiting {
		fmt.Fprintf(&b, " failures=%d", e.Failures)
	}
	if e.Kind == ShutdownCompleted {
		fmt.Fprintf(&b, " running=%v lease_holder=%s", e.Running, formatID(e.LeaseHolder))
	}
	if e.Kind == CancelChecked {
		fmt.Fprintf(&b, " asked=%v", e.Asked)
	}
	if e.Kind == JobPass {
		fmt.Fprintf(&b, " queues=%v limit=%d reserved=%d", e.PassQueues, e.Limit, e.Reserved)
	}
	if e.Kind == DutiesEnded && e.Limit > 0 {
		fmt.Fprintf(&b, " retention_batch=%d deleted=%d", e.Limit, e.Deleted)
	}
	if !e.LeaseExpires.IsZero() {
		fmt.Fprintf(&b, " lease_expires=%s", formatTime(e.LeaseExpires))
	}
	if e.Schedule != "" {
		fmt.Fprintf(&b, " schedule=%s cron_time=%s", e.Schedule, formatTime(e.CronTime))
	}
	writeChanges(&b, "job", e.Jobs)
	writeChanges(&b, "worker", e.Workers)
	writeChanges(&b, "lease", e.Leases)
	writeChanges(&b, "schedule", e.Schedules)
	return b.String()
}

// writeChanges appends one "table: before -> after" line per change.
func writeChanges[R fmt.Stringer](b *strings.Builder, table string, changes []Change[R]) {
	for _, c := range changes {
		fmt.Fprintf(b, "\n    %s: %v -> %v", table, ptrString(c.Before), ptrString(c.After))
	}
}

// ptrString renders a row, or "none" for an absent one.
func ptrString[R fmt.Stringer](r *R) string {
	if r == nil {
		return "none"
	}
	return (*r).String()
}

// formatID prints a ULID, or "-" for the zero (NULL) id.
func formatID(id ulid.ULID) string {
	if id.IsZero() {
		return "-"
	}
	return id.String()
}
