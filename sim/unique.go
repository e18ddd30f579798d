package sim

import (
	"fmt"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// UniqueLoad is a scenario's use of unique keys: a share of the
// enqueued jobs carry one of a few keys, so that enqueues collide with
// each other and with retries; and a share of the bursts are sent as one
// batch larger than store/pg's COPY threshold.
type UniqueLoad struct {
	Frac      float64 `json:"frac"`                // share of jobs with a key; 0: none
	Keys      int     `json:"keys"`                // how many keys they draw from
	Completed bool    `json:"completed,omitempty"` // a completed row keeps its key
	Period    Dur     `json:"period,omitempty"`    // unique per window of store time
	BulkFrac  float64 `json:"bulk_frac"`           // share of bursts sent as one large batch
}

// copyBatch is the smallest batch store/pg inserts with COPY when it has
// no unique keys.
const copyBatch = 65

// drawUniqueLoad draws from a source of its own, so that every other
// setting of a seed stays what it was before unique keys existed. A third
// of the seeds use no keys.
func drawUniqueLoad(seed uint64) UniqueLoad {
	r := clockrng.NewRand(seed).Child("unique")
	if r.IntN(3) == 0 {
		return UniqueLoad{}
	}
	u := UniqueLoad{Frac: []float64{0.3, 0.6, 1}[r.IntN(3)], Keys: 1 + r.IntN(8), BulkFrac: 0.5}
	u.Completed = r.Chance(0.25)
	if r.Chance(0.3) {
		u.Period = Dur(r.DurationBetween(time.Second, 10*time.Second).Truncate(time.Millisecond))
	}
	return u
}

// line renders the load for the head of a trace.
func (u UniqueLoad) line() string {
	return fmt.Sprintf("unique frac %.1f keys %d completed %t period %v bulk %.1f", u.Frac, u.Keys, u.Completed, u.Period, u.BulkFrac)
}

// keyJob gives j a key drawn from r, Frac of the time.
func (u UniqueLoad) keyJob(r *clockrng.Rand, j *store.NewJob) {
	if u.Frac == 0 || !r.Chance(u.Frac) {
		return
	}
	j.UniqueKey = fmt.Sprintf("k%d", r.IntN(u.Keys))
	if u.Completed {
		j.UniqueStates = store.LiveStatuses | store.StatusesOf(store.Completed)
	}
	j.UniquePeriod = u.Period.D()
}

// burstSize is n, or a batch past the COPY threshold for BulkFrac of the
// bursts of a seed with keys.
func (u UniqueLoad) burstSize(r *clockrng.Rand, n int) int {
	if u.Frac > 0 && r.Chance(u.BulkFrac) {
		return copyBatch + r.IntN(40)
	}
	return n
}
