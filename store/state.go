package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/format"
)

// State is every row of a store at one moment: what the conformance suite
// compares and what the simulator diffs when a store has no commit hook.
type State struct {
	Jobs      []Job
	Workers   []Worker
	Lease     *Lease // nil: no lease
	Schedules []Schedule
	Queues    []Queue // the queues rows, in name order (AllQueues first)
	Vacuum    *Vacuum // the vacuums row; nil: no vacuum recorded
	Batches   []Batch // the batches rows of the callbacks among Jobs, in id order
}

// readState reads every row through tx: all jobs page by page, the
// workers, the lease and the schedules.
func readState(ctx context.Context, tx Tx) (State, error) {
	var s State
	var after ulid.ULID
	for {
		page, err := tx.ListJobs(ctx, JobFilter{After: after, Limit: 500})
		if err != nil {
			return s, err
		}
		s.Jobs = append(s.Jobs, page...)
		if len(page) < 500 {
			break
		}
		after = page[len(page)-1].ID
	}
	var err error
	if s.Batches, err = readBatches(ctx, tx, s.Jobs); err != nil {
		return s, err
	}
	if s.Workers, err = tx.ListWorkers(ctx); err != nil {
		return s, err
	}
	switch l, err := tx.GetLease(ctx); {
	case err == nil:
		s.Lease = &l
	case !errors.Is(err, ErrNotFound):
		return s, err
	}
	if s.Schedules, err = tx.ListSchedules(ctx); err != nil {
		return s, err
	}
	stats, err := tx.ListQueues(ctx)
	if err != nil {
		return s, err
	}
	switch at, err := tx.PausedAll(ctx); {
	case err != nil:
		return s, err
	case !at.IsZero():
		s.Queues = append(s.Queues, Queue{Name: AllQueues, PausedAt: at})
	}
	for _, q := range stats {
		if q.NeedsRow() {
			s.Queues = append(s.Queues, q.Queue)
		}
	}
	switch v, err := tx.LastVacuum(ctx); {
	case err == nil:
		s.Vacuum = &v
	case !errors.Is(err, ErrNotFound):
		return s, err
	}
	return s, nil
}

// readBatches reads the batches rows of the callbacks among jobs.
func readBatches(ctx context.Context, tx Tx, jobs []Job) ([]Batch, error) {
	var out []Batch
	for _, j := range jobs {
		if j.CallbackOf != j.ID || j.ID == (ulid.ULID{}) {
			continue
		}
		b, err := tx.GetBatch(ctx, j.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// Snapshot reads every row of st in one transaction of its own, so that
// the rows it returns were all there at the same moment.
func Snapshot(ctx context.Context, st Store) (State, error) {
	var s State
	err := st.InTx(ctx, func(tx Tx) (err error) { s, err = readState(ctx, tx); return err })
	return s, err
}

// JobsIn returns the rows in status, in the state's (id) order; nil when
// there are none.
func (s State) JobsIn(status Status) []Job {
	var out []Job
	for _, j := range s.Jobs {
		if j.Status == status {
			out = append(out, j)
		}
	}
	return out
}

// Equal reports whether s and o hold the same rows, column by column,
// including each time's location. It is String() == o.String() without the
// formatting cost.
func (s State) Equal(o State) bool {
	return slices.EqualFunc(s.Jobs, o.Jobs, sameJob) &&
		slices.Equal(s.Workers, o.Workers) &&
		(s.Lease == nil) == (o.Lease == nil) && (s.Lease == nil || *s.Lease == *o.Lease) &&
		slices.Equal(s.Schedules, o.Schedules) && slices.Equal(s.Queues, o.Queues) &&
		(s.Vacuum == nil) == (o.Vacuum == nil) && (s.Vacuum == nil || *s.Vacuum == *o.Vacuum) &&
		slices.EqualFunc(s.Batches, o.Batches, func(a, b Batch) bool { return a.String() == b.String() })
}

// sameJob compares two rows; == on times also compares locations, which
// the suite wants (stores return UTC).
func sameJob(a, b Job) bool {
	return bytes.Equal(a.Payload, b.Payload) && bytes.Equal(a.Metadata, b.Metadata) && bytes.Equal(a.Output, b.Output) &&
		a.ID == b.ID && a.Queue == b.Queue && a.Status == b.Status && a.Attempt == b.Attempt &&
		a.CreatedAt == b.CreatedAt && a.ScheduledAt == b.ScheduledAt && a.StartedAt == b.StartedAt &&
		a.StartedBy == b.StartedBy && a.CompletedAt == b.CompletedAt && a.FailedAt == b.FailedAt &&
		a.FailedReason == b.FailedReason && a.CancelledAt == b.CancelledAt &&
		a.NextAttemptID == b.NextAttemptID && a.ScheduleName == b.ScheduleName &&
		a.UniqueKey == b.UniqueKey && a.UniqueStates == b.UniqueStates && a.Priority == b.Priority &&
		a.MaxAttempts == b.MaxAttempts && a.Snoozes == b.Snoozes && a.PartitionKey == b.PartitionKey && a.Sequence == b.Sequence &&
		slices.Equal(a.Parents, b.Parents) && a.RunAnyway == b.RunAnyway &&
		a.Batch == b.Batch && a.BatchCounted == b.BatchCounted && a.CallbackOf == b.CallbackOf && a.DeadFrom == b.DeadFrom
}

// String formats the state one row per line, so that two states compare as
// text and a difference shows as a line.
func (s State) String() string {
	var b strings.Builder
	for _, j := range s.Jobs {
		fmt.Fprintln(&b, FormatJob(j))
	}
	for _, w := range s.Workers {
		fmt.Fprintf(&b, "worker %s registered=%s seen=%s shutdown=%s\n", w.ID, format.Time(w.RegisteredAt), format.Time(w.LastSeenAt), format.Time(w.ShutdownAt))
	}
	if s.Lease != nil {
		fmt.Fprintln(&b, format.Lease(s.Lease.WorkerID, s.Lease.ElectedAt, s.Lease.ExpiresAt))
	}
	for _, sc := range s.Schedules {
		fmt.Fprintf(&b, "schedule %q at=%s job=%s\n", sc.Name, format.Time(sc.LastScheduledAt), format.ID(sc.LastScheduledJobID))
	}
	for _, q := range s.Queues {
		fmt.Fprintf(&b, "queue %q paused=%s limit=%d rate=%d/%s", q.Name, format.Time(q.PausedAt), q.Limit, q.Rate, q.RatePeriod)
		if q.KeyLimit > 0 { // absent otherwise, as before per-key limits
			fmt.Fprintf(&b, " per-key=%d", q.KeyLimit)
		}
		b.WriteByte('\n')
	}
	if s.Vacuum != nil {
		fmt.Fprintf(&b, "vacuum started=%s dead=%d\n", format.Time(s.Vacuum.StartedAt), s.Vacuum.DeadRows)
	}
	for _, bt := range s.Batches {
		fmt.Fprintln(&b, bt.String())
	}
	return b.String()
}

// FormatJob formats every column of a row, times with their zone, so that
// rows compare as text.
func FormatJob(j Job) string {
	s := formatJob(j)
	if j.PartitionKey != "" { // absent otherwise, as before partition keys
		s += fmt.Sprintf(" key=%q", j.PartitionKey)
	}
	if j.Sequence.Key != "" { // the same, as before sequences
		s += " " + j.Sequence.String()
	}
	if len(j.Parents) > 0 || j.RunAnyway { // the same, before dependencies
		s += fmt.Sprintf(" parents=%v anyway=%t", j.Parents, j.RunAnyway)
	}
	if j.Batch != (ulid.ULID{}) || j.CallbackOf != (ulid.ULID{}) { // the same, before batches
		s += fmt.Sprintf(" batch=%s counted=%t callback-of=%s", format.ID(j.Batch), j.BatchCounted, format.ID(j.CallbackOf))
	}
	if j.DeadFrom != "" { // the same, before dead letters
		s += fmt.Sprintf(" dead-from=%q", j.DeadFrom)
	}
	return s
}

func formatJob(j Job) string {
	return fmt.Sprintf("job %s queue=%q payload=%q metadata=%q status=%s attempt=%d created=%s scheduled=%s started=%s by=%s completed=%s failed=%s reason=%q cancelled=%s next=%s schedule=%q unique=%q/%s output=%q priority=%d max-attempts=%d snoozes=%d",
		j.ID, j.Queue, j.Payload, j.Metadata, j.Status, j.Attempt, format.Time(j.CreatedAt), format.Time(j.ScheduledAt),
		format.Time(j.StartedAt), format.ID(j.StartedBy), format.Time(j.CompletedAt), format.Time(j.FailedAt), j.FailedReason,
		format.Time(j.CancelledAt), format.ID(j.NextAttemptID), j.ScheduleName, j.UniqueKey, j.UniqueStates, j.Output, j.Priority, j.MaxAttempts, j.Snoozes)
}
