package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/internal/names"
)

// Config is what a worker core does and how often. A zero field means its
// default, noted on each field, so any subset of fields can be set;
// where zero is a value of its own (no retries, no jitter, no drain, no
// snoozes) a named constant says it (NoRetries, NoJitter, NoDrain,
// NoSnoozes). WithDefaults fills a Config in; DefaultConfig is the zero
// Config filled in. Validate reports a filled-in config that cannot work.
type Config struct {
	// Queues are the queues this worker reserves jobs from. It may be empty
	// for a worker that only takes part in leader duties (worker.New, when
	// it is empty, takes the queues of the worker's handlers).
	Queues []string
	// MaxConcurrent caps the jobs executing locally at once (0: 10).
	MaxConcurrent int
	// MaxFetch caps the jobs reserved by one tick (0: 5).
	MaxFetch int
	// MaxRetries is the highest attempt number a retry may create: a job
	// runs at most MaxRetries+1 times (0: 10; NoRetries: a job runs once),
	// unless its queue's policy or the job itself sets another bound.
	MaxRetries int
	// MaxSnoozes is how many times a job may snooze (worker.Snooze) before
	// the next snooze fails it for good (0: 100; NoSnoozes: the first
	// snooze fails it).
	MaxSnoozes int

	// PollInterval is the wait between ticks when nothing else wakes the
	// worker (0: 1 s), spread by ±PollJitter, a fraction below 1 (0: 0.1;
	// NoJitter: none).
	PollInterval time.Duration
	PollJitter   float64
	// HeartbeatInterval is how often, on the local clock, the worker
	// updates its last_seen_at (0: 1 min).
	HeartbeatInterval time.Duration
	// LeaseTTL is how long, in store time, the leader lease lasts after
	// each renewal (0: 5 s).
	LeaseTTL time.Duration
	// LeaderInterval is how often at most, on the local clock, a tick runs
	// lease maintenance and leader duties (0: 500 ms, or a quarter of
	// LeaseTTL when that is shorter). Ticks woken by
	// finished jobs come much more often than that; doing the lease and the
	// duties on each of them would cost round trips without changing what
	// happens. It must be well below LeaseTTL so the lease is renewed in time.
	LeaderInterval time.Duration
	// DeadWorkerThreshold is how long, in store time, a worker may go
	// without a heartbeat before the leader declares it dead (0: 2 min, or
	// twice HeartbeatInterval when that is longer).
	DeadWorkerThreshold time.Duration
	// JobRetention and WorkerRetention are how long, in store time, terminal
	// jobs and shut-down workers are kept (0: 30 days and 7 days).
	JobRetention    time.Duration
	WorkerRetention time.Duration
	// CleanupInterval is how often at most, on the local clock, the leader
	// deletes old rows (0: 1 min).
	CleanupInterval time.Duration
	// CleanupBatch is how many old jobs one leader pass deletes at most
	// (0: 2000), so that a sweep through a backlog of history (a first
	// deployment of retention, a month of a busy queue) is many short
	// transactions, not one long one; after a full batch the next pass
	// goes on without waiting for CleanupInterval.
	CleanupBatch int
	// CallTimeout bounds each store call while the worker serves (a tick,
	// the duties): its context ends that long after the call begins, so
	// that a connection gone silent without closing (half-open, a
	// blackholed network) fails the call instead of holding the worker
	// forever (0: half of DeadWorkerThreshold, at most 30 s). The calls
	// after the stop have ShutdownCallTimeout instead.
	CallTimeout time.Duration
	// DrainTimeout is how long a graceful shutdown waits for running jobs
	// before cancelling and releasing them (0: 30 s; NoDrain: it cancels
	// them at once).
	DrainTimeout time.Duration
	// VacuumDeadRows turns the vacuum duty on (0: off, the default): the
	// leader vacuums the jobs table, outside any transaction and beside the
	// job path, once the store counts at least this many dead rows in it
	// and VacuumInterval of store time has passed since the last vacuum
	// any leader began. It needs a store that can vacuum (store.Vacuumer).
	// For a server whose autovacuum is off, or too slow for a queue's
	// churn (autovacuum_naptime bounds it to once a minute).
	VacuumDeadRows int64
	// VacuumInterval is the least store time between two vacuums across
	// leaders (0: 1 min); the duty's state is persisted, so a new
	// leader keeps it.
	VacuumInterval time.Duration
	// VacuumTimeout is how long the driver lets a vacuum run before it
	// gives it up (0: 1 h). A VACUUM of a large table can rightly take
	// many minutes, and one cut short is work thrown away; the deadline is
	// there for a vacuum left waiting on a connection that went silent
	// (half-open), which would otherwise stop the leader vacuuming for
	// good. One given up is done again by a later claim.
	VacuumTimeout time.Duration
	// Backoff is the retry delay policy: a zero Base is 5 s and a zero
	// Factor 2 (5 s × 2^attempt); a zero Max is no cap and a zero Jitter
	// none, as clockrng.DefaultBackoff.
	Backoff clockrng.Backoff
	// Policies are the retry policies of queues whose handlers set their
	// own (worker.WithQueueMaxAttempts, worker.WithRetryDelay): a zero field of one
	// takes MaxRetries or Backoff. worker.Run fills it from the handlers;
	// a driver of its own Core (the simulator) sets it (none when empty).
	Policies map[string]RetryPolicy
	// Schedules are the recurring jobs the leader enqueues (none when
	// empty).
	Schedules []ScheduleSpec
	// DeadLetters are the dead-letter queues the worker writes on their
	// queues' rows when it registers, by queue; worker.Run adds those of
	// the handlers (worker.DeadLetter).
	DeadLetters map[string]string
}

// ScheduleSpec is one recurring job: Cron has six fields, seconds first, and
// is read in UTC (robfig/cron/v3). Each run enqueues Payload on Queue.
// With a UniqueKey, each run carries it (held while the run is scheduled,
// available or running, as worker.WithUniqueKey's default), and a cron time
// is skipped while another row holds it.
type ScheduleSpec struct {
	Name      string
	Cron      string
	Queue     string
	Payload   json.RawMessage
	UniqueKey string
}

// cronParser reads six-field expressions, seconds first.
var cronParser = cron.NewParser(cron.Second | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// Validate reports every setting of a filled-in config (WithDefaults)
// that cannot work, joined into one error.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("worker config: "+format, args...)) }
	if c.MaxConcurrent < 1 {
		bad("MaxConcurrent is %d, must be at least 1", c.MaxConcurrent)
	}
	if c.MaxFetch < 1 {
		bad("MaxFetch is %d, must be at least 1", c.MaxFetch)
	}
	if c.MaxRetries < 0 {
		bad("MaxRetries is %d, must not be negative (NoRetries for none)", c.MaxRetries)
	}
	if c.CleanupBatch < 1 {
		bad("CleanupBatch is %d, must be at least 1", c.CleanupBatch)
	}
	if c.MaxSnoozes < 0 {
		bad("MaxSnoozes is %d, must not be negative (NoSnoozes for none)", c.MaxSnoozes)
	}
	if c.PollJitter < 0 || c.PollJitter >= 1 {
		bad("PollJitter is %v, must be within [0, 1) (NoJitter for none)", c.PollJitter)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"PollInterval", c.PollInterval}, {"HeartbeatInterval", c.HeartbeatInterval},
		{"LeaseTTL", c.LeaseTTL}, {"LeaderInterval", c.LeaderInterval},
		{"DeadWorkerThreshold", c.DeadWorkerThreshold}, {"JobRetention", c.JobRetention},
		{"WorkerRetention", c.WorkerRetention}, {"CleanupInterval", c.CleanupInterval},
		{"CallTimeout", c.CallTimeout}, {"VacuumTimeout", c.VacuumTimeout},
	} {
		if d.v <= 0 {
			bad("%s is %v, must be positive", d.name, d.v)
		}
	}
	if c.VacuumDeadRows < 0 {
		bad("VacuumDeadRows is %d, must not be negative (0 turns the vacuum duty off)", c.VacuumDeadRows)
	}
	if c.VacuumDeadRows > 0 && c.VacuumInterval <= 0 {
		bad("VacuumInterval is %v, must be positive when VacuumDeadRows is set", c.VacuumInterval)
	}
	if c.DrainTimeout < 0 {
		bad("DrainTimeout is %v, must not be negative (NoDrain for none)", c.DrainTimeout)
	}
	if c.LeaderInterval >= c.LeaseTTL && c.LeaseTTL > 0 {
		bad("LeaderInterval %v must be shorter than LeaseTTL %v, or the lease lapses between renewals", c.LeaderInterval, c.LeaseTTL)
	}
	if c.DeadWorkerThreshold <= c.HeartbeatInterval && c.HeartbeatInterval > 0 {
		bad("DeadWorkerThreshold %v must be longer than HeartbeatInterval %v, or live workers are declared dead", c.DeadWorkerThreshold, c.HeartbeatInterval)
	}
	if err := c.Backoff.Validate(); err != nil {
		bad("%v", err)
	}
	errs = append(errs, validateNames("queue", c.Queues)...)
	errs = append(errs, validateSchedules(c.Schedules)...)
	errs = append(errs, validatePolicies(c.Policies)...)
	errs = append(errs, validateDeadLetters(c.DeadLetters)...)
	return errors.Join(errs...)
}

// validateNames checks that queue names are usable and distinct.
func validateNames(what string, list []string) []error {
	var errs []error
	seen := map[string]bool{}
	for _, n := range list {
		if err := names.Check(what, n); err != nil {
			errs = append(errs, fmt.Errorf("worker config: %w", err))
		}
		if seen[n] {
			errs = append(errs, fmt.Errorf("worker config: %s %q is listed twice", what, n))
		}
		seen[n] = true
	}
	return errs
}

func validateSchedules(specs []ScheduleSpec) []error {
	var errs []error
	for _, s := range specs {
		if _, err := parseCron(s.Cron); err != nil {
			errs = append(errs, fmt.Errorf("worker config: schedule %q: %w", s.Name, err))
		}
		if err := names.Check("queue", s.Queue); err != nil {
			errs = append(errs, fmt.Errorf("worker config: schedule %q: %w", s.Name, err))
		}
		if !json.Valid(s.Payload) {
			errs = append(errs, fmt.Errorf("worker config: schedule %q: payload %q is not valid JSON", s.Name, s.Payload))
		}
		if err := names.CheckKey(s.UniqueKey); err != nil {
			errs = append(errs, fmt.Errorf("worker config: schedule %q: %w", s.Name, err))
		}
	}
	return append(errs, validateNames("schedule", scheduleNames(specs))...)
}

// ScheduleHorizon is how far ahead of any moment a schedule must have a
// cron time: an expression with none within it (30 February, 31 April)
// never fires, and Validate refuses it. The cron library looks no further
// than five years ahead either: past that it answers "no time".
const ScheduleHorizon = 5 * 365 * 24 * time.Hour

// horizonFrom is the moment Validate looks ahead from. Which moment does
// not matter within this century: the times a six-field UTC expression
// matches repeat every 28 years from 1901 to 2099, and the horizon from
// here holds every day of the calendar, 29 February 2004 included. The
// one expression it cannot speak for, 29 February alone, has no time
// within the horizon from March 2096 on (2100 is no leap year): the
// leader then enqueues nothing for it (nextRun).
var horizonFrom = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)

// parseCron reads a six-field UTC expression that has a time within
// ScheduleHorizon. Time zone prefixes are refused because schedules run
// in UTC, the store's zone.
func parseCron(expr string) (cron.Schedule, error) {
	parsedCrons.Lock()
	defer parsedCrons.Unlock()
	if p, ok := parsedCrons.m[expr]; ok {
		return p.s, p.err
	}
	s, err := parseCronOnce(expr)
	if len(parsedCrons.m) < maxParsedCrons {
		parsedCrons.m[expr] = cronParse{s, err}
	}
	return s, err
}

// parsedCrons remembers parseCron's answers. A worker parses its schedules
// at every start, in Validate and in NewCore, and checks each against the
// horizon, which walks the calendar; the simulator starts processes
// thousands of times a run with the same few expressions. A parsed
// schedule is only ever read, so the workers of a process share it.
var parsedCrons = struct {
	sync.Mutex
	m map[string]cronParse
}{m: map[string]cronParse{}}

// maxParsedCrons bounds parsedCrons for a program that validates
// expressions it is given at run time.
const maxParsedCrons = 256

type cronParse struct {
	s   cron.Schedule
	err error
}

func parseCronOnce(expr string) (cron.Schedule, error) {
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return nil, fmt.Errorf("cron expression %q names a time zone; schedules run in UTC", expr)
	}
	s, err := cronParser.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("cron expression %q (want 6 fields, seconds first): %w", expr, err)
	}
	if _, ok := nextRun(s, horizonFrom); !ok {
		return nil, fmt.Errorf("cron expression %q matches no time within %d years: it never fires (a day the month does not have?)",
			expr, ScheduleHorizon/(365*24*time.Hour))
	}
	return s, nil
}

// nextRun returns the schedule's next cron time after now, and false when
// it has none within ScheduleHorizon: the cron library's zero time for
// "none" must never read as a time that is due.
func nextRun(s cron.Schedule, now time.Time) (time.Time, bool) {
	at := s.Next(now.UTC())
	if mutant.On(mutant.ScheduleZeroDue) {
		return at, true
	}
	if at.IsZero() || at.Sub(now) > ScheduleHorizon {
		return time.Time{}, false
	}
	return at, true
}

// scheduleNames returns the schedule names in the order of specs (the
// core keeps its specs sorted by name).
func scheduleNames(specs []ScheduleSpec) []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return names
}
