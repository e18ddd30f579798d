package worker

import (
	"time"

	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
)

// uniqueOptions are the unique-job options of one enqueue call.
type uniqueOptions struct {
	key         string
	byPayload   bool
	statuses    store.StatusSet
	period      time.Duration
	onDuplicate func(i int, existing store.Job)
}

// WithUniqueKey makes the jobs unique by key: while a row holding the same key
// exists (by default one that is scheduled, available or running), an
// enqueue inserts nothing and returns that row's id instead; WithOnDuplicate
// tells the caller. The store enforces it in the same transaction as the
// insert, whatever path the job takes (EnqueueTx, EnqueueMany, a retry or
// a rescue). The key is not scoped by queue. Every job of one EnqueueMany
// call gets the same key, so only the first is inserted; WithUniqueByPayload
// gives each its own.
func WithUniqueKey(key string) EnqueueOption {
	return func(o *enqueueOptions) { o.unique.key, o.unique.byPayload = key, false }
}

// WithUniqueByPayload makes each job unique by its queue and its payload's
// JSON text (the key is a sha256 of both), as WithUniqueKey would.
func WithUniqueByPayload() EnqueueOption {
	return func(o *enqueueOptions) { o.unique.key, o.unique.byPayload = "", true }
}

// WithUniqueWhile sets the statuses in which a row holds its key: scheduled,
// available and running always, completed and cancelled if given. A key
// covering completed makes a job run at most once (per period).
func WithUniqueWhile(statuses ...store.Status) EnqueueOption {
	return func(o *enqueueOptions) { o.unique.statuses = store.LiveStatuses | store.StatusesOf(statuses...) }
}

// WithUniquePeriod makes the key unique per window of store time: rows inserted
// in different windows of length period (aligned on the zero time) never
// conflict.
func WithUniquePeriod(period time.Duration) EnqueueOption {
	return func(o *enqueueOptions) { o.unique.period = period }
}

// WithOnDuplicate calls fn, after the insert, for each job that was not
// inserted because existing holds its unique key; i is the job's position
// in the call. A duplicate is never an error.
func WithOnDuplicate(fn func(i int, existing store.Job)) EnqueueOption {
	return func(o *enqueueOptions) { o.unique.onDuplicate = fn }
}

// apply sets the unique fields of j, whose queue and payload are set.
// Statuses or a period without a key are left for ValidateNewJob to refuse.
func (u uniqueOptions) apply(j *store.NewJob) {
	j.UniqueKey = u.key
	if u.byPayload {
		j.UniqueKey = names.PayloadKey(j.Queue, j.Payload)
	}
	j.UniqueStates, j.UniquePeriod = u.statuses, u.period
}
