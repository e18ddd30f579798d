package sim

import (
	"bytes"
	"slices"

	"github.com/tickwork/tickwork/store"
)

// change is a row before and after a transaction (nil: absent).
type change[R any] struct{ Before, After *R }

// canonical reduces a transaction's writes to what depends only on the rows
// before and after it: one change per row (its first Before, its last
// After), in key order, and none for a row that ended as it began. Two
// stores that apply the same transaction give the same changes, however
// many writes they report and in whatever order.
func canonical[W any, K comparable, R any](writes []W, key func(W) K, rows func(W) (before, after *R), same func(a, b *R) bool, cmpKey func(a, b K) int) ([]K, []change[R]) {
	return canonicalInto(nil, nil, writes, key, rows, same, cmpKey)
}

// canonicalInto is canonical appending to keys[:0] and out[:0], whose
// room it reuses.
func canonicalInto[W any, K comparable, R any](keys []K, out []change[R], writes []W, key func(W) K, rows func(W) (before, after *R), same func(a, b *R) bool, cmpKey func(a, b K) int) ([]K, []change[R]) {
	keys, out = keys[:0], out[:0]
	switch len(writes) {
	case 0:
		return keys, out
	case 1: // most transactions write one row once: nothing to fold or sort
		before, after := rows(writes[0])
		if same(before, after) {
			return keys, out
		}
		return append(keys, key(writes[0])), append(out, change[R]{Before: before, After: after})
	}
	for _, w := range writes {
		k := key(w)
		before, after := rows(w)
		i := slices.Index(keys, k) // cmpKey is 0 exactly for equal keys: == spares its call
		if i < 0 {
			keys = append(keys, k)
			out = append(out, change[R]{Before: before})
			i = len(out) - 1
		}
		out[i].After = after
	}
	n := 0
	for i := range out {
		if !same(out[i].Before, out[i].After) {
			keys[n], out[n] = keys[i], out[i]
			n++
		}
	}
	keys, out = keys[:n], out[:n]
	sortByKey(keys, out, cmpKey)
	return keys, out
}

// sortByKey sorts the distinct keys, and out with them. Insertion sort: a
// transaction's rows are few, and they usually come in key order already.
func sortByKey[K, C any](keys []K, out []C, cmp func(a, b K) int) {
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && cmp(keys[j-1], keys[j]) > 0; j-- {
			keys[j-1], keys[j] = keys[j], keys[j-1]
			out[j-1], out[j] = out[j], out[j-1]
		}
	}
}

// both reports whether a and b are both nil (true) or both set (false,
// and the caller compares them); ok is false when only one is nil.
func both[R any](a, b *R) (nilBoth, ok bool) {
	if a == nil || b == nil {
		return a == nil && b == nil, a == nil && b == nil
	}
	return false, true
}

func sameJob(a, b *store.Job) bool {
	if n, ok := both(a, b); n || !ok {
		return n
	}
	return a.ID == b.ID && a.Queue == b.Queue && bytes.Equal(a.Payload, b.Payload) && bytes.Equal(a.Metadata, b.Metadata) &&
		a.Status == b.Status && a.Attempt == b.Attempt && a.CreatedAt.Equal(b.CreatedAt) && a.ScheduledAt.Equal(b.ScheduledAt) &&
		a.StartedAt.Equal(b.StartedAt) && a.StartedBy == b.StartedBy && a.CompletedAt.Equal(b.CompletedAt) &&
		a.FailedAt.Equal(b.FailedAt) && a.FailedReason == b.FailedReason && a.CancelledAt.Equal(b.CancelledAt) &&
		a.NextAttemptID == b.NextAttemptID && a.ScheduleName == b.ScheduleName && a.Priority == b.Priority &&
		a.MaxAttempts == b.MaxAttempts && a.Snoozes == b.Snoozes && a.Sequence == b.Sequence &&
		slices.Equal(a.Parents, b.Parents) && a.RunAnyway == b.RunAnyway &&
		a.Batch == b.Batch && a.BatchCounted == b.BatchCounted && a.CallbackOf == b.CallbackOf && a.DeadFrom == b.DeadFrom
}

func sameWorker(a, b *store.Worker) bool {
	if n, ok := both(a, b); n || !ok {
		return n
	}
	return a.ID == b.ID && a.RegisteredAt.Equal(b.RegisteredAt) && a.LastSeenAt.Equal(b.LastSeenAt) && a.ShutdownAt.Equal(b.ShutdownAt)
}

func sameLease(a, b *store.Lease) bool {
	if n, ok := both(a, b); n || !ok {
		return n
	}
	return a.WorkerID == b.WorkerID && a.ElectedAt.Equal(b.ElectedAt) && a.ExpiresAt.Equal(b.ExpiresAt)
}

func sameSchedule(a, b *store.Schedule) bool {
	if n, ok := both(a, b); n || !ok {
		return n
	}
	return a.Name == b.Name && a.LastScheduledAt.Equal(b.LastScheduledAt) && a.LastScheduledJobID == b.LastScheduledJobID
}
