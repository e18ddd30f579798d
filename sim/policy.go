package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	keys "github.com/tickwork/tickwork/internal/names" // sim has a names type of its own
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

// PolicyLoad is a scenario's use of the handlers' retry policies: queues whose
// handlers bound their jobs' attempts and decide their delays, jobs with a
// bound of their own, how many snoozes a job may take (handlers snooze
// when the snooze fault kind is on) and schedules with unique keys.
type PolicyLoad struct {
	Queues     []QueuePolicy `json:"queues,omitempty"`
	JobFrac    float64       `json:"job_frac,omitempty"` // share of enqueued jobs with a bound of their own
	MaxSnoozes int           `json:"max_snoozes"`
	SnoozeMax  Dur           `json:"snooze_max"` // the longest wait a handler's snooze asks for
}

// QueuePolicy is one queue's handler policy: its bound on attempts (0:
// MaxRetries+1) and, with a BackoffBase, its own backoff (factor 2).
type QueuePolicy struct {
	Queue         string  `json:"queue"`
	MaxAttempts   int     `json:"max_attempts,omitempty"`
	BackoffBase   Dur     `json:"backoff_base,omitempty"`
	BackoffJitter float64 `json:"backoff_jitter,omitempty"`
}

// jobBoundMax is the largest bound a job is given of its own.
const jobBoundMax = 5

// maxCrons is the most schedules a drawn scenario has (the schedules fault
// kind's largest rate).
const maxCrons = 2

// drawPolicyLoad draws from a source of its own, so that every other
// setting of a seed stays what it was before; a third of the seeds give
// no queue or job a policy of its own. It also gives some of sc's
// schedules a unique key: "sched", which they share, or "k0", which
// enqueued jobs may hold too.
func drawPolicyLoad(sc *Scenario) PolicyLoad {
	r := clockrng.NewRand(sc.Seed).Child("policy")
	p := PolicyLoad{MaxSnoozes: r.IntN(4), SnoozeMax: Dur(r.DurationBetween(100*time.Millisecond, 2*time.Second).Truncate(time.Millisecond))}
	for i := range maxCrons { // as many draws whatever the number of schedules
		key := [...]string{"sched", "sched", "k0", ""}[r.IntN(4)]
		if i < len(sc.Crons) {
			sc.Crons[i].UniqueKey = key
		}
	}
	if r.IntN(3) == 0 {
		return p
	}
	for i := range sc.Queues {
		if !r.Chance(0.5) {
			continue
		}
		q := QueuePolicy{Queue: queueName(i), MaxAttempts: r.IntN(jobBoundMax + 1)}
		if r.Chance(0.5) {
			q.BackoffBase = Dur(r.DurationBetween(50*time.Millisecond, time.Second).Truncate(time.Millisecond))
			q.BackoffJitter = []float64{0, 0.3}[r.IntN(2)]
		}
		p.Queues = append(p.Queues, q)
	}
	if r.Chance(0.5) {
		p.JobFrac = 0.3
	}
	return p
}

// backoff returns the queue's own backoff, nil when it has none.
func (q QueuePolicy) backoff() *clockrng.Backoff {
	if q.BackoffBase == 0 {
		return nil
	}
	return &clockrng.Backoff{Base: q.BackoffBase.D(), Factor: 2, Jitter: q.BackoffJitter}
}

// line renders the load for the head of a trace; "" when it changes
// nothing of what a seed did before it existed.
func (p PolicyLoad) line(sc *Scenario) string {
	var parts []string
	for _, q := range p.Queues {
		parts = append(parts, fmt.Sprintf("%s max-attempts %d backoff %v jitter %.1f", q.Queue, q.MaxAttempts, q.BackoffBase, q.BackoffJitter))
	}
	if p.JobFrac > 0 {
		parts = append(parts, fmt.Sprintf("job bounds %.1f", p.JobFrac))
	}
	if sc.On(HandlerSnooze) {
		parts = append(parts, fmt.Sprintf("max-snoozes %d snooze-max %v", p.MaxSnoozes, p.SnoozeMax))
	}
	if len(parts) == 0 {
		return ""
	}
	return "policy " + strings.Join(parts, "; ")
}

// policies returns the handlers' retry policies for the workers' config.
func (p PolicyLoad) policies() map[string]worker.RetryPolicy {
	if len(p.Queues) == 0 {
		return nil
	}
	out := make(map[string]worker.RetryPolicy, len(p.Queues))
	for _, q := range p.Queues {
		rp := worker.RetryPolicy{MaxAttempts: q.MaxAttempts}
		if b := q.backoff(); b != nil {
			rp.Delay = func(attempt int, _ error, r *clockrng.Rand) time.Duration { return b.Delay(attempt, r) }
		}
		out[q.Queue] = rp
	}
	return out
}

// params returns the queues' policies as the checker reads them.
func (p PolicyLoad) params() []props.QueuePolicy {
	var out []props.QueuePolicy
	for _, q := range p.Queues {
		out = append(out, props.QueuePolicy{Queue: q.Queue, MaxAttempts: q.MaxAttempts, Backoff: q.backoff()})
	}
	return out
}

// boundJob gives j a bound of its own, JobFrac of the time.
func (p PolicyLoad) boundJob(r *clockrng.Rand, j *store.NewJob) {
	if p.JobFrac > 0 && r.Chance(p.JobFrac) {
		j.MaxAttempts = 1 + r.IntN(jobBoundMax)
	}
}

// storedKey is the unique key the runs of a schedule with key carry.
func storedKey(key string) string {
	return keys.StoredKey(key, store.LiveStatuses.String(), 0, time.Time{})
}

// bound returns how many attempts r's job may take, as the workers decide.
func (sc *Scenario) bound(r *props.JobRow) int {
	if r.MaxAttempts > 0 {
		return r.MaxAttempts
	}
	for _, q := range sc.Policy.Queues {
		if q.Queue == r.Queue && q.MaxAttempts > 0 {
			return q.MaxAttempts
		}
	}
	return sc.MaxRetries + 1
}

// runsLeft is how many more runs r's job may take from r on, its own
// included: the attempts its bound leaves, and the snoozes left when
// handlers snooze.
func (sc *Scenario) runsLeft(r *props.JobRow) int {
	return sc.bound(r) - r.Attempt + max(sc.snoozesAllowed()-r.Snoozes, 0)
}

// maxBound is the largest bound on attempts any job may have.
func (sc *Scenario) maxBound() int {
	n := sc.MaxRetries + 1
	for _, q := range sc.Policy.Queues {
		n = max(n, q.MaxAttempts)
	}
	if sc.Policy.JobFrac > 0 {
		n = max(n, jobBoundMax)
	}
	return n
}

// snoozesAllowed is how many snoozes a job may take: MaxSnoozes when
// handlers snooze, else none.
func (sc *Scenario) snoozesAllowed() int {
	if sc.On(HandlerSnooze) {
		return sc.Policy.MaxSnoozes
	}
	return 0
}

// longestBackoff is the longest delay before the retry of attempt under
// any queue's policy.
func (sc *Scenario) longestBackoff(attempt int) time.Duration {
	_, hi := sc.Backoff().Bounds(attempt)
	for _, q := range sc.Policy.Queues {
		if b := q.backoff(); b != nil {
			_, h := b.Bounds(attempt)
			hi = max(hi, h)
		}
	}
	return hi
}
