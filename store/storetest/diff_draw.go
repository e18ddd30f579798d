package storetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
	"pgregory.net/rapid"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// The small worlds the differential test draws names from, so that
// operations collide often. The empty name, and names PostgreSQL's text
// cannot hold (NUL, invalid UTF-8), are invalid on purpose.
var (
	diffQueues    = []string{"a", "b", "c", "", "q\x00", "q\xff"}
	diffSchedules = []string{"s1", "s2", "s3", "", "s\x00"}
	diffPayloads  = []string{`{"n":1}`, ` [1, 2] `, `"x"`, `null`, `{"a":`}
	diffMetadata  = []string{"", `{"t":"x"}`, `nope`}
	// Unique keys: "" (none) half the time, two that collide, then ones
	// no store accepts.
	diffUniqueKeys = []string{"", "", "k1", "k2", "k\x00", strings.Repeat("k", store.MaxUniqueKeyBytes+1)}
	// Partition keys: none, a hot one, another; then refused ones.
	diffPartitionKeys = []string{"", "hot", "hot", "k1", "p\x00", strings.Repeat("p", store.MaxPartitionKeyBytes+1)}
	// Covered statuses: the default, the allowed extensions, then sets
	// that leave a live status out or cover failed.
	diffUniqueStates = []store.StatusSet{0, store.LiveStatuses, store.LiveStatuses | store.StatusesOf(store.Completed),
		store.LiveStatuses | store.StatusesOf(store.Cancelled), store.StatusesOf(store.Available),
		store.LiveStatuses | store.StatusesOf(store.Failed)}
	diffUniquePeriods = []time.Duration{0, time.Minute, 90 * time.Second, -time.Second}
	allQueues         = diffQueues[:3]
)

// freshID returns a new id from the shared clock and the drawn seed, the
// same for both stores.
func (d *diff) freshID() ulid.ULID { return clockrng.NewULID(d.clock.Now(), d.rnd) }

// pick returns one of known, or now and then (and always when known is
// empty) an id no store has seen.
func (d *diff) pick(rt *rapid.T, known []ulid.ULID, label string) ulid.ULID {
	if len(known) == 0 || rapid.IntRange(0, 15).Draw(rt, label+" unknown") == 0 {
		return d.freshID()
	}
	return rapid.SampledFrom(known).Draw(rt, label)
}

// pickWorker returns a known worker, an unknown one, or now and then the
// zero id, which must match no row (not even those whose worker was
// deleted, started_by NULL).
func (d *diff) pickWorker(rt *rapid.T) ulid.ULID {
	if rapid.IntRange(0, 19).Draw(rt, "zero worker") == 0 {
		return ulid.ULID{}
	}
	return d.pick(rt, d.workers, "worker")
}

func (d *diff) pickJob(rt *rapid.T) ulid.ULID { return d.pick(rt, d.jobs, "job") }

// newJobID returns the id for a new row: usually fresh, sometimes one that
// exists, to exercise conflicts.
func (d *diff) newJobID(rt *rapid.T) ulid.ULID {
	if len(d.jobs) > 0 && rapid.IntRange(0, 9).Draw(rt, "reuse job id") == 0 {
		return rapid.SampledFrom(d.jobs).Draw(rt, "reused job id")
	}
	id := d.freshID()
	d.jobs = append(d.jobs, id)
	return id
}

// duration draws a duration in [lo, hi] with nanoseconds, so that the
// stores' truncation to microseconds is exercised.
func duration(rt *rapid.T, label string, lo, hi time.Duration) time.Duration {
	return time.Duration(rapid.Int64Range(int64(lo), int64(hi)).Draw(rt, label))
}

// rarely returns one of all, else one of all[:valid]: invalid inputs are
// drawn one time in twenty, so that most operations get past validation.
func rarely[S ~[]E, E any](rt *rapid.T, all S, valid int, label string) E {
	if rapid.IntRange(0, 19).Draw(rt, label+" invalid") == 0 {
		return rapid.SampledFrom(all).Draw(rt, label)
	}
	return rapid.SampledFrom(all[:valid]).Draw(rt, label)
}

func (d *diff) drawNewJob(rt *rapid.T) store.NewJob {
	j := store.NewJob{
		ID:           d.newJobID(rt),
		Queue:        rarely(rt, diffQueues, 3, "queue"),
		Payload:      json.RawMessage(rarely(rt, diffPayloads, 4, "payload")),
		ScheduleName: rapid.SampledFrom(diffSchedules[:3]).Draw(rt, "schedule name"),
		Priority:     drawPriority(rt),
		MaxAttempts:  drawMaxAttempts(rt),
	}
	j.PartitionKey = rarely(rt, diffPartitionKeys, 4, "partition key")
	drawSequence(rt, &j)
	if m := rarely(rt, diffMetadata, 2, "metadata"); m != "" {
		j.Metadata = json.RawMessage(m)
	}
	if j.UniqueKey = rarely(rt, diffUniqueKeys, 4, "unique key"); j.UniqueKey != "" {
		j.UniqueStates = rarely(rt, diffUniqueStates, 4, "unique states")
		j.UniquePeriod = rarely(rt, diffUniquePeriods, 3, "unique period")
	}
	if rapid.Bool().Draw(rt, "scheduled") {
		j.ScheduledAt = d.clock.Now().Add(duration(rt, "scheduled in", -2*time.Minute, 5*time.Minute))
		if rapid.IntRange(0, 19).Draw(rt, "scheduled out of range") == 0 {
			j.ScheduledAt = j.ScheduledAt.AddDate(300000, 0, 0) // past PostgreSQL's range too
		}
	}
	return j
}

// drawQueues is usually every queue, else a random selection.
func (d *diff) drawQueues(rt *rapid.T) []string {
	if rapid.Bool().Draw(rt, "all queues") {
		return allQueues
	}
	return rapid.SliceOfN(rapid.SampledFrom(allQueues), 0, 3).Draw(rt, "queues")
}

// pickRow returns, three times in four, a row in status s; else nil, and
// the caller picks at random. It aims at d.last, the rows both stores hold
// (checkState makes sure), so that operations hit rows where they do
// something.
func (d *diff) pickRow(rt *rapid.T, s store.Status) *store.Job {
	rows := d.last.JobsIn(s)
	if len(rows) == 0 || rapid.IntRange(0, 3).Draw(rt, "aim at "+string(s)) == 0 {
		return nil
	}
	j := rapid.SampledFrom(rows).Draw(rt, string(s)+" row")
	return &j
}

// pickFailedOrLost returns a failed row, else a lost one, else (or when
// pickRow does not aim) any job id, an unknown one included.
func (d *diff) pickFailedOrLost(rt *rapid.T) ulid.ULID {
	id := d.pickJob(rt)
	if j := d.pickRow(rt, store.Failed); j != nil {
		id = j.ID
	} else if j := d.pickRow(rt, store.Lost); j != nil {
		id = j.ID
	}
	return id
}

func fmtJobs(jobs []store.Job) string {
	lines := make([]string, len(jobs))
	for i, j := range jobs {
		lines[i] = store.FormatJob(j)
	}
	return "[" + strings.Join(lines, "; ") + "]"
}

func fmtIDs(ids []ulid.ULID) string { return fmt.Sprint(ids) }
