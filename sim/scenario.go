package sim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tickwork/tickwork/clockrng"
)

// Scenario is everything a simulation run depends on besides its code: the
// seed of every random draw and the settings drawn from it. Draw derives a
// scenario from a seed; the rapid property test builds one field by field so
// that a failure shrinks. Printed as JSON, a scenario replays exactly with
// `simulate -scenario`.
type Scenario struct {
	Seed    uint64 `json:"seed"`
	Workers int    `json:"workers"`
	Queues  int    `json:"queues"`

	// Worker configuration (the same for every worker process).
	MaxConcurrent   int     `json:"max_concurrent"`
	MaxFetch        int     `json:"max_fetch"`
	MaxRetries      int     `json:"max_retries"`
	PollInterval    Dur     `json:"poll_interval"`
	PollJitter      float64 `json:"poll_jitter"`
	Heartbeat       Dur     `json:"heartbeat"`
	LeaseTTL        Dur     `json:"lease_ttl"`
	LeaderInterval  Dur     `json:"leader_interval"`
	DeadThreshold   Dur     `json:"dead_threshold"`
	DrainTimeout    Dur     `json:"drain_timeout"`
	CleanupInterval Dur     `json:"cleanup_interval"`
	JobRetention    Dur     `json:"job_retention"`
	WorkerRetention Dur     `json:"worker_retention"`
	// CleanupBatch is how many old jobs a leader pass deletes at most,
	// small when the retention kind is on, so that sweeps go on at the
	// next pass (zero: the engine's default).
	CleanupBatch  int     `json:"cleanup_batch,omitzero"`
	BackoffBase   Dur     `json:"backoff_base"`
	BackoffFactor float64 `json:"backoff_factor"`
	BackoffJitter float64 `json:"backoff_jitter"`
	BackoffMax    Dur     `json:"backoff_max,omitzero"` // drawn with a huge factor (edges.go)
	// The vacuum duty, on with its fault kind: the dead-row threshold is
	// its rate, the interval drawn.
	VacuumInterval Dur `json:"vacuum_interval,omitzero"`

	// CallTimeout is the deadline of each store call when the half-open
	// kind is on (zero: the engine's default, from DeadThreshold).
	CallTimeout Dur `json:"call_timeout,omitzero"`

	// Workload.
	Jobs        int        `json:"jobs"`         // enqueued at the start
	DelayedFrac float64    `json:"delayed_frac"` // share of them scheduled for later
	JobMax      Dur        `json:"job_max"`      // longest handler run (local time)
	JobTimeout  Dur        `json:"job_timeout"`  // handler timeout (local time)
	BurstSize   int        `json:"burst_size"`   // most jobs in one burst
	Crons       []CronSpec `json:"crons,omitempty"`
	Unique      UniqueLoad `json:"unique,omitzero"`
	Policy      PolicyLoad `json:"policy,omitzero"`

	// Start is where the store's clock starts; zero: Epoch (edges.go).
	Start time.Time `json:"start,omitzero"`

	// Phases.
	Chaos      Dur `json:"chaos"`      // faults on
	Quiescence Dur `json:"quiescence"` // faults off; the longest it may take to settle

	Faults []FaultSetting `json:"faults"` // one per kind, in drawing order
}

// CronSpec is one schedule the workers run, with a unique key or not.
type CronSpec struct {
	Name      string `json:"name"`
	Cron      string `json:"cron"`
	Queue     string `json:"queue"`
	UniqueKey string `json:"unique_key,omitempty"`
}

// FaultSetting is one fault kind's switch and rate (see FaultKind for what
// the rate means for each kind).
type FaultSetting struct {
	Kind string  `json:"kind"`
	On   bool    `json:"on"`
	Rate float64 `json:"rate"`
}

// Draw derives the scenario of seed: short leases, thresholds and backoff so
// that rare states (leases expiring mid-duty, workers declared dead, retries
// exhausted) happen within seconds of virtual time.
func Draw(seed uint64, ov FaultOverrides) Scenario {
	r := clockrng.NewRand(seed).Child("scenario")
	pick := func(lo, hi time.Duration) Dur { return Dur(r.DurationBetween(lo, hi).Truncate(time.Millisecond)) }
	s := Scenario{Seed: seed}
	s.Workers = 2 + r.IntN(4)
	s.Queues = 1 + r.IntN(3)
	s.MaxConcurrent = 1 + r.IntN(5)
	s.MaxFetch = 1 + r.IntN(4)
	s.MaxRetries = r.IntN(4)
	s.PollInterval = pick(200*time.Millisecond, time.Second)
	s.PollJitter = 0.1
	s.LeaseTTL = pick(time.Second, 4*time.Second)
	s.LeaderInterval = Dur(s.LeaseTTL.D() / time.Duration(3+r.IntN(3))).truncMs()
	s.Heartbeat = pick(time.Second, 3*time.Second)
	s.DeadThreshold = Dur(s.Heartbeat.D() * time.Duration(2+r.IntN(3)))
	// Once the cancel grace; the runner's policy now derives it from the
	// drain timeout. The draw stays so that every seed keeps its scenario.
	_ = pick(50*time.Millisecond, 500*time.Millisecond)
	s.CleanupInterval = pick(2*time.Second, 10*time.Second)
	s.JobRetention = Dur(30 * 24 * time.Hour)
	s.WorkerRetention = Dur(7 * 24 * time.Hour)
	s.BackoffBase = pick(100*time.Millisecond, time.Second)
	s.BackoffFactor = 2
	if r.Chance(0.5) {
		s.BackoffJitter = 0.2
	}
	s.Jobs = 10 + r.IntN(31)
	s.DelayedFrac = float64(r.IntN(4)) / 10
	s.JobMax = pick(50*time.Millisecond, 2*time.Second)
	s.JobTimeout = pick(300*time.Millisecond, 3*time.Second)
	// Shorter than most handler runs, so that shutdowns reach the deadline.
	s.DrainTimeout = pick(100*time.Millisecond, max(s.JobMax.D(), 200*time.Millisecond))
	s.BurstSize = 5 + r.IntN(20)
	s.Chaos = pick(20*time.Second, 60*time.Second)
	s.Faults = drawFaults(clockrng.NewRand(seed).Child("faults"), ov)
	if s.On(Schedules) {
		s.Crons = drawCrons(r, s.Queues, int(s.Rate(Schedules)))
		// The rate gives one schedule but for its top value; half the
		// seeds get a second, from a stream of their own so that no other
		// draw moves, so that a leader pass meets several due at once.
		if second := clockrng.NewRand(seed).Child("schedules/second"); len(s.Crons) < maxCrons && second.Chance(0.5) {
			s.Crons = append(s.Crons, drawCrons(second, s.Queues, 1)...)
			s.Crons[len(s.Crons)-1].Name = fmt.Sprintf("cron%d", len(s.Crons)-1)
		}
	}
	if s.On(Retention) {
		s.JobRetention = pick(5*time.Second, 30*time.Second)
		s.WorkerRetention = pick(5*time.Second, 30*time.Second)
		// From a stream of its own, so that no other draw moves.
		s.CleanupBatch = 1 + clockrng.NewRand(seed).Child("cleanup-batch").IntN(8)
	}
	s.Policy = drawPolicyLoad(&s)
	drawEdges(&s)
	s.Quiescence = Dur(s.settleBound())
	s.Unique = drawUniqueLoad(seed)
	if s.On(Vacuum) {
		s.VacuumInterval = drawVacuumInterval(seed)
	}
	if s.On(HalfOpen) {
		s.CallTimeout = drawCallTimeout(seed, s.DeadThreshold.D())
	}
	return s
}

// Normalize makes a scenario whose fields were changed one by one (by
// flags or a property test) consistent again: schedules exist exactly when
// their fault kind is on and name existing queues, retention is short only
// when that kind is on, and the quiescence bound fits the retry policy.
func (s *Scenario) Normalize() {
	r := clockrng.NewRand(s.Seed).Child("normalize")
	switch {
	case !s.On(Schedules):
		s.Crons = nil
	case len(s.Crons) == 0:
		s.Crons = drawCrons(r, s.Queues, 1)
	}
	for i := range s.Crons {
		if n, err := strconv.Atoi(strings.TrimPrefix(s.Crons[i].Queue, "q")); err != nil || n >= s.Queues {
			s.Crons[i].Queue = queueName(0)
		}
	}
	s.Policy.Queues = slices.DeleteFunc(s.Policy.Queues, func(q QueuePolicy) bool {
		n, err := strconv.Atoi(strings.TrimPrefix(q.Queue, "q"))
		return err != nil || n >= s.Queues
	})
	if !s.On(Retention) {
		s.JobRetention, s.WorkerRetention = Dur(30*24*time.Hour), Dur(7*24*time.Hour)
		s.CleanupBatch = 0
	} else if s.JobRetention.D() > time.Hour {
		s.JobRetention, s.WorkerRetention = Dur(10*time.Second), Dur(10*time.Second)
		s.CleanupBatch = 3
	}
	if !s.On(HalfOpen) {
		s.CallTimeout = 0
	}
	switch {
	case !s.On(Vacuum):
		s.VacuumInterval = 0
	case s.VacuumInterval <= 0:
		s.VacuumInterval = drawVacuumInterval(s.Seed)
	}
	s.Quiescence = Dur(s.settleBound())
}

func (d Dur) truncMs() Dur { return Dur(d.D().Truncate(time.Millisecond)) }

// faultRates gives, per kind, the chance it is on in a seed and the range of
// its rate.
var faultRates = [numFaultKinds]struct{ on, lo, hi float64 }{
	Crash:          {0.5, 0.5, 3},
	Stall:          {0.5, 0.5, 3},
	StoreBefore:    {0.4, 0.01, 0.08},
	StoreAbort:     {0.4, 0.01, 0.08},
	StoreAfter:     {0.4, 0.01, 0.08},
	Latency:        {0.5, 0.02, 0.2},
	Outage:         {0.3, 1, 2},
	NotifyLoss:     {0.5, 0.1, 0.9},
	NotifyDelay:    {0.5, 0.1, 0.5},
	Drift:          {0.5, 0.01, 0.2},
	ClockJump:      {0.4, 0.5, 2},
	Shutdown:       {0.5, 0.3, 2},
	Cancel:         {0.3, 1, 10},
	Burst:          {0.6, 1, 6},
	Schedules:      {0.5, 1, 2},
	Retention:      {0.3, 0, 0},
	HandlerRetry:   {0.7, 1, 3},
	HandlerFail:    {0.5, 0.5, 1},
	HandlerPanic:   {0.4, 0.3, 1},
	HandlerTimeout: {0.5, 0.3, 1},
	IgnoreCancel:   {0.5, 0.2, 0.8},
	Priorities:     {0.5, 0.3, 1},
	QueueControl:   {0.5, 2, 12},
	Vacuum:         {0.5, 2, 40},
	HandlerSnooze:  {0.5, 0.3, 1.5},
	QueueRate:      {0.4, 3, 12},
	HalfOpen:       {0.3, 0.005, 0.03},
	ReadOnly:       {0.4, 0.002, 0.02},
	KeyLimits:      {0.4, 3, 12},
	Sequences:      {0.4, 3, 12},
	Dependencies:   {0.4, 0.2, 0.6},
	Batches:        {0.4, 0.3, 0.8},
	Deletes:        {0.3, 1, 10},
	DeadLetters:    {0.4, 3, 12},
	PauseAll:       {0.4, 2, 8},
	QueueChurn:     {0.4, 1, 6},
	Encryption:     {0.4, 0.2, 0.8},
	Bulk:           {0.4, 2, 10},
	History:        {0.4, 2, 8},
}

// drawFaults draws each kind from its own child source, so adding a kind
// later does not change what earlier kinds draw.
func drawFaults(r *clockrng.Rand, ov FaultOverrides) []FaultSetting {
	out := make([]FaultSetting, numFaultKinds)
	for _, k := range FaultKinds() {
		kr := r.Child(k.String())
		fr := faultRates[k]
		on := kr.Chance(fr.on) && (!pooledKinds[k] || ov.pooled)
		// The conversion keeps the product from fusing with the sum (FMA), which
		// would round differently on some machines.
		rate := fr.lo + float64(kr.Float64()*(fr.hi-fr.lo))
		rate = float64(int64(rate*1000)) / 1000 // three decimals, so printing round-trips
		out[k] = FaultSetting{Kind: k.String(), On: ov.Apply(k, on), Rate: rate}
	}
	return out
}

var cronChoices = []string{"*/3 * * * * *", "*/5 * * * * *", "*/10 * * * * *", "0,20,40 * * * * *", "*/2 * * * * *"}

func drawCrons(r *clockrng.Rand, queues, n int) []CronSpec {
	out := make([]CronSpec, n)
	for i := range out {
		out[i] = CronSpec{
			Name:  fmt.Sprintf("cron%d", i),
			Cron:  cronChoices[r.IntN(len(cronChoices))],
			Queue: queueName(r.IntN(queues)),
		}
	}
	return out
}

func queueName(i int) string { return fmt.Sprintf("q%d", i) }

// On reports whether fault kind k is enabled.
func (s *Scenario) On(k FaultKind) bool {
	f := s.fault(k)
	return f != nil && f.On
}

// Rate returns kind k's rate (meaningful only when it is on).
func (s *Scenario) Rate(k FaultKind) float64 {
	if f := s.fault(k); f != nil {
		return f.Rate
	}
	return 0
}

// fault returns kind k's setting, nil if the scenario has none. A drawn
// scenario lists the kinds in order: it looks at k's place first (asked
// on nearly every event, a scan was 4% of a run), small enough to be
// inlined, which takes half of what was left.
func (s *Scenario) fault(k FaultKind) *FaultSetting {
	if uint(k) < uint(len(s.Faults)) && uint(k) < uint(numFaultKinds) && s.Faults[k].Kind == faultNames[k] {
		return &s.Faults[k]
	}
	return s.faultByName(k)
}

// faultByName looks for kind k's setting wherever the scenario lists it.
func (s *Scenario) faultByName(k FaultKind) *FaultSetting {
	name := k.String()
	for i := range s.Faults {
		if s.Faults[i].Kind == name {
			return &s.Faults[i]
		}
	}
	return nil
}

// Backoff returns the retry policy in force.
func (s *Scenario) Backoff() clockrng.Backoff {
	return clockrng.Backoff{Base: s.BackoffBase.D(), Factor: s.BackoffFactor, Max: s.BackoffMax.D(), Jitter: s.BackoffJitter}
}

// Validate reports a scenario that cannot be run.
func (s *Scenario) Validate() error {
	var errs []string
	if s.Workers < 1 {
		errs = append(errs, fmt.Sprintf("workers is %d, must be at least 1", s.Workers))
	}
	if s.Queues < 1 {
		errs = append(errs, fmt.Sprintf("queues is %d, must be at least 1", s.Queues))
	}
	if s.Chaos < 0 || s.Quiescence <= 0 {
		errs = append(errs, fmt.Sprintf("chaos %v must not be negative and quiescence %v must be positive", s.Chaos, s.Quiescence))
	}
	if s.JobMax <= 0 || s.JobTimeout <= 0 {
		errs = append(errs, fmt.Sprintf("job_max %v and job_timeout %v must be positive", s.JobMax, s.JobTimeout))
	}
	if s.CleanupBatch < 0 {
		errs = append(errs, fmt.Sprintf("cleanup_batch is %d, must not be negative (0: the default)", s.CleanupBatch))
	}
	if len(s.Faults) != int(numFaultKinds) {
		errs = append(errs, fmt.Sprintf("faults lists %d kinds, want %d", len(s.Faults), numFaultKinds))
	}
	if len(errs) > 0 {
		return fmt.Errorf("scenario seed %d: %s", s.Seed, strings.Join(errs, "; "))
	}
	return nil
}

// JSON returns the scenario on one line, in the form -scenario reads.
func (s *Scenario) JSON() string {
	b, err := json.Marshal(s)
	if err != nil {
		panic("sim: scenario does not encode: " + err.Error()) // only plain fields: cannot happen
	}
	return string(b)
}

// ParseScenario reads a scenario printed by JSON.
func ParseScenario(text string) (Scenario, error) {
	var s Scenario
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("scenario %q: %w", text, err)
	}
	return s, s.Validate()
}

// Lines renders every setting, one per line, for the head of a -v trace.
func (s *Scenario) Lines() []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	add("seed %d workers %d queues %d jobs %d delayed %.1f burst-size %d", s.Seed, s.Workers, s.Queues, s.Jobs, s.DelayedFrac, s.BurstSize)
	add("max-concurrent %d max-fetch %d max-retries %d", s.MaxConcurrent, s.MaxFetch, s.MaxRetries)
	add("poll %v jitter %.2f heartbeat %v lease-ttl %v leader-interval %v dead-threshold %v", s.PollInterval, s.PollJitter, s.Heartbeat, s.LeaseTTL, s.LeaderInterval, s.DeadThreshold)
	add("drain %v cleanup %v job-retention %v worker-retention %v", s.DrainTimeout, s.CleanupInterval, s.JobRetention, s.WorkerRetention)
	if s.CleanupBatch > 0 {
		add("cleanup-batch %d", s.CleanupBatch)
	}
	add("backoff base %v factor %.1f jitter %.2f", s.BackoffBase, s.BackoffFactor, s.BackoffJitter)
	out = append(out, edgeLines(s)...)
	add("job-max %v job-timeout %v chaos %v quiescence-bound %v", s.JobMax, s.JobTimeout, s.Chaos, s.Quiescence)
	if s.Unique.Frac > 0 {
		add("%s", s.Unique.line())
	}
	if line := s.Policy.line(s); line != "" {
		add("%s", line)
	}
	for _, c := range s.Crons {
		if c.UniqueKey != "" {
			add("schedule %s %q queue %s unique-key %s", c.Name, c.Cron, c.Queue, c.UniqueKey)
			continue
		}
		add("schedule %s %q queue %s", c.Name, c.Cron, c.Queue)
	}
	if s.On(Vacuum) {
		add("vacuum dead-rows %d interval %v", s.VacuumDeadRows(), s.VacuumInterval)
	}
	if s.CallTimeout > 0 {
		add("call-timeout %v", s.CallTimeout)
	}
	for _, f := range s.Faults {
		state := "off"
		if f.On {
			state = "on"
		} else if f.Kind == HalfOpen.String() || f.Kind == ReadOnly.String() {
			continue // added later: seeds without it keep their traces
		}
		add("fault %-13s %-3s rate %.3f", f.Kind, state, f.Rate)
	}
	return out
}
