package store

import (
	"fmt"
	"strings"

	"github.com/tickwork/tickwork/internal/names"
)

// StatusSet is a set of statuses, one bit per status: the statuses in which
// a row holds its unique key.
type StatusSet uint8

// statusOrder gives each status its bit: the order of the CASE in the
// PostgreSQL index predicate (store/pg, migrations unique_jobs and
// snoozes) must match it.
var statusOrder = [...]Status{Scheduled, Available, Running, Completed, Failed, Lost, Cancelled, Snoozed}

// StatusesOf returns the set holding statuses.
func StatusesOf(statuses ...Status) StatusSet {
	var set StatusSet
	for _, s := range statuses {
		for i, o := range statusOrder {
			if o == s {
				set |= 1 << i
			}
		}
	}
	return set
}

// Has reports whether s is in the set.
func (set StatusSet) Has(s Status) bool { return set&StatusesOf(s) != 0 }

// String lists the set's statuses in status order, comma-separated.
func (set StatusSet) String() string { return statusSetNames[set] }

// statusSetNames holds every set's String, built once: the simulator
// renders a row's set with each change it checks.
var statusSetNames = func() (all [1 << len(statusOrder)]string) {
	for set := range all {
		var names []string
		for i, s := range statusOrder {
			if set&(1<<i) != 0 {
				names = append(names, string(s))
			}
		}
		all[set] = strings.Join(names, ",")
	}
	return all
}()

// LiveStatuses are the statuses a unique key always covers, and the default
// set: a row that may still run holds its key. Failed and lost are never
// covered, so that a retry, which inherits its row's key in the same
// transaction that failed the row, never meets that row; nor is snoozed,
// for the same reason.
var LiveStatuses = StatusesOf(Scheduled, Available, Running)

// coverable are the statuses a unique key may cover.
var coverable = LiveStatuses | StatusesOf(Completed, Cancelled)

// MaxUniqueKeyBytes (256) is the longest unique key a job may be given.
const MaxUniqueKeyBytes = names.MaxKeyBytes

// CoveredStatuses returns the statuses nj's key covers: UniqueStates, or
// LiveStatuses when that is empty. Empty when nj has no key.
func (nj NewJob) CoveredStatuses() StatusSet {
	switch {
	case nj.UniqueKey == "":
		return 0
	case nj.UniqueStates == 0:
		return LiveStatuses
	}
	return nj.UniqueStates
}

// Holds reports whether row j holds its unique key now.
func (j Job) Holds() bool { return j.UniqueKey != "" && j.UniqueStates.Has(j.Status) }

// validateUnique checks the unique fields of a new job.
func validateUnique(j NewJob) error {
	if j.UniqueKey == "" {
		if j.UniqueStates != 0 || j.UniquePeriod != 0 {
			return fmt.Errorf("unique statuses or period without a unique key: %w", ErrInvalid)
		}
		return nil
	}
	if err := names.CheckKey(j.UniqueKey); err != nil {
		return err
	}
	var why string
	switch set := j.CoveredStatuses(); {
	case set&LiveStatuses != LiveStatuses || set&^coverable != 0:
		why = fmt.Sprintf("covers %q: it must cover %s and may add completed or cancelled only", set, LiveStatuses)
	case j.UniquePeriod < 0:
		why = fmt.Sprintf("has a negative period %s", j.UniquePeriod)
	default:
		return nil
	}
	return fmt.Errorf("unique key %s %s: %w", names.Quote(j.UniqueKey), why, ErrInvalid)
}

// Duplicate is a job InsertJobs did not insert because a row holding the
// same unique key exists: Existing is that row, Index the job's position
// in the batch.
type Duplicate struct {
	Index    int
	Existing Job
}

// MarshalText renders the set as String does, so that JSON shows names.
func (set StatusSet) MarshalText() ([]byte, error) { return []byte(set.String()), nil }
