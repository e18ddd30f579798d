package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tickwork/tickwork/worker"
)

const runSynopsis = `worker run [flags]

Processes jobs of the -queues with the built-in handlers until SIGTERM or
SIGINT, then stops reserving, waits up to -drain-timeout for running jobs,
releases those that did not finish (they are retried) and exits 0; a signal
while it still connects to the database stops it at once, also with 0. A
second signal abandons the drain: running jobs are cancelled at once and
released (failed with reason "worker shut down", retried while attempts
remain), the worker is marked shut down and the process exits 1. A third
signal kills it at once.

Built-in queues:
  webhook  payload {"url": "...", "body": <any JSON>, "headers": {...}}:
           POSTs body to url; 2xx succeeds, 5xx, 408, 429 or a timeout is
           retried, any other answer fails the job. Loopback, private,
           link-local and unspecified addresses are refused (checked on the
           address actually dialled) unless -webhook-allow-private is set.
  noop     does nothing and succeeds (for benchmarks)

On -metrics-addr (127.0.0.1:9464 by default) it serves /metrics
(Prometheus), /healthz (the process is up) and /readyz (the database
answers and the worker loop runs). With -admin-addr it also serves the web
console (see worker console -help).`

// runFlags are the flags of worker run.
type runFlags struct {
	db  dbFlags
	log logFlags

	queues       string
	concurrency  int
	maxFetch     int
	lanes        int
	maxRetries   int
	maxSnoozes   int
	retryDelay   time.Duration
	drainTimeout time.Duration
	metricsAddr  string
	adminAddr    string
	adminToken   string

	webhookAllowPrivate bool
	webhookTimeout      time.Duration
	webhookMaxAttempts  int

	pollInterval      time.Duration
	heartbeatInterval time.Duration
	leaseTTL          time.Duration
	deadThreshold     time.Duration
	callTimeout       time.Duration

	vacuumDeadRows int
	vacuumInterval time.Duration
	vacuumTimeout  time.Duration

	jobRetention    time.Duration
	workerRetention time.Duration
	cleanupInterval time.Duration
	cleanupBatch    int

	schedules []worker.ScheduleSpec
	keys      keysFlag

	historyLog     string
	historyProcess string
}

func (f *runFlags) register(fs *flag.FlagSet) {
	def := worker.DefaultConfig()
	f.db.register(fs)
	f.log.register(fs)
	f.keys.register(fs)
	fs.StringVar(&f.queues, "queues", "webhook,noop", "comma-separated queues to process, among the built-in ones")
	intVar(fs, &f.concurrency, "concurrency", def.MaxConcurrent, 1, 10000, "most jobs running at once")
	intVar(fs, &f.maxFetch, "max-fetch", def.MaxFetch, 1, 1000, "most jobs reserved per loop iteration")
	intVar(fs, &f.lanes, "lanes", 1, 1, worker.MaxLanes, "tuning: job paths run at once, each a worker of its own in the database with its share of -concurrency and -max-fetch; two from about 100 jobs in flight when the database has time to spare, one more per 500 beyond 1,000 (docs/OPERATIONS.md, \"Lanes\")")
	intVar(fs, &f.maxRetries, "max-retries", def.MaxRetries, 0, 100, "retries of a job before it is abandoned (it runs at most this + 1 times), unless its queue's handler or the job sets its own bound")
	intVar(fs, &f.maxSnoozes, "max-snoozes", def.MaxSnoozes, 0, 10000, "snoozes a job may take before its next snooze fails it")
	durationVar(fs, &f.retryDelay, "retry-delay", def.Backoff.Base, time.Millisecond, day, "delay before the first retry; it doubles with each attempt")
	durationVar(fs, &f.drainTimeout, "drain-timeout", def.DrainTimeout, 0, day, "on SIGTERM/SIGINT, how long to wait for running jobs before cancelling and releasing them")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "127.0.0.1:9464", `address serving /metrics, /healthz and /readyz, loopback only by default (":9464" listens on every interface); "" turns the server off`)
	fs.StringVar(&f.adminAddr, "admin-addr", "", `address serving the web console, e.g. 127.0.0.1:8080; "" turns it off`)
	fs.StringVar(&f.adminToken, "admin-token", "", "with -admin-addr: token that enables the console's actions (empty: read-only)")
	boolVar(fs, &f.webhookAllowPrivate, "webhook-allow-private", "let webhooks reach loopback, private, link-local and unspecified addresses")
	durationVar(fs, &f.webhookTimeout, "webhook-timeout", 30*time.Second, time.Millisecond, maxTimeout, "how long a webhook may take to answer before the attempt is retried")
	intVar(fs, &f.webhookMaxAttempts, "webhook-max-attempts", 0, 0, 1000, "attempts of a webhook job, retries included (0: -max-retries + 1); a job enqueued with -max-attempts keeps its own")
	durationVar(fs, &f.pollInterval, "poll-interval", def.PollInterval, 10*time.Millisecond, maxTimeout, "tuning: wait between polls when no notification arrives")
	durationVar(fs, &f.heartbeatInterval, "heartbeat-interval", def.HeartbeatInterval, 10*time.Millisecond, maxTimeout, "tuning: how often the worker reports it is alive")
	durationVar(fs, &f.leaseTTL, "lease-ttl", def.LeaseTTL, 100*time.Millisecond, maxTimeout, "tuning: how long the leader's lease lasts after each renewal")
	durationVar(fs, &f.callTimeout, "call-timeout", 0, 0, maxTimeout, "how long one store call (a tick, the leader's duties, a release, the shutdown) may take before it is abandoned and retried (0: half of -dead-threshold, at most 30s)")
	durationVar(fs, &f.deadThreshold, "dead-threshold", def.DeadWorkerThreshold, 100*time.Millisecond, day, "tuning: silence after which the leader declares a worker dead and rescues its jobs")
	intVar(fs, &f.vacuumDeadRows, "vacuum-dead-rows", 0, 0, 1<<30, "the leader vacuums the jobs table (VACUUM ANALYZE, beside the job path) once its statistics count this many dead rows, at most once per -vacuum-interval across leaders; for a server whose autovacuum is off or too slow for the queue (0: off)")
	durationVar(fs, &f.vacuumInterval, "vacuum-interval", def.VacuumInterval, time.Second, day, "with -vacuum-dead-rows: the least time, on the database's clock, between two vacuums")
	durationVar(fs, &f.vacuumTimeout, "vacuum-timeout", def.VacuumTimeout, time.Second, day, "with -vacuum-dead-rows: how long a vacuum may run before the worker gives it up (a later claim vacuums again); it ends a vacuum left waiting on a silent connection")
	durationVar(fs, &f.jobRetention, "job-retention", def.JobRetention, time.Second, 3650*day, "how long, on the database's clock, the leader keeps a job's row once that attempt ended (completed, failed or was cancelled)")
	durationVar(fs, &f.workerRetention, "worker-retention", def.WorkerRetention, time.Second, 3650*day, "how long, on the database's clock, the leader keeps a shut-down worker's row")
	durationVar(fs, &f.cleanupInterval, "cleanup-interval", def.CleanupInterval, time.Second, day, "how often at most the leader deletes rows past -job-retention and -worker-retention")
	intVar(fs, &f.cleanupBatch, "cleanup-batch", def.CleanupBatch, 1, 1000000, "most jobs one leader pass deletes; after a full batch the next pass goes on at once, so a backlog goes in short transactions")
	fs.Var(scheduleFlag{&f.schedules}, "schedule", "a recurring job NAME|CRON|QUEUE|PAYLOAD (cron: 6 fields, seconds first, UTC), or NAME|CRON|QUEUE|unique=KEY|PAYLOAD to skip a cron time while a job holds KEY; repeat for more. Every worker of a deployment must list the same schedules")
	fs.StringVar(&f.historyLog, "history-log", "", "testing: append to this file, as JSON lines, the events a live run's property checker needs (cmd/chaos)")
	fs.StringVar(&f.historyProcess, "history-process", fmt.Sprintf("pid %d", os.Getpid()), "testing: the process name written in -history-log events")
}

// config turns the flags into the worker's configuration as worker.New
// takes it (a flag's zero as the field's "none" value), or a usageError.
func (f *runFlags) config() (worker.Config, error) {
	cfg := worker.DefaultConfig()
	queues, err := parseQueues(f.queues)
	if err != nil {
		return cfg, err
	}
	cfg.Queues = queues
	cfg.MaxConcurrent = f.concurrency
	cfg.MaxFetch = f.maxFetch
	cfg.MaxRetries = zeroAs(f.maxRetries, worker.NoRetries)
	cfg.MaxSnoozes = zeroAs(f.maxSnoozes, worker.NoSnoozes)
	cfg.Backoff.Base = f.retryDelay
	cfg.DrainTimeout = zeroAs(f.drainTimeout, worker.NoDrain)
	cfg.PollInterval = f.pollInterval
	cfg.HeartbeatInterval = f.heartbeatInterval
	cfg.LeaseTTL = f.leaseTTL
	cfg.DeadWorkerThreshold = f.deadThreshold
	cfg.CallTimeout = f.callTimeout
	cfg.Schedules = f.schedules
	cfg.VacuumDeadRows, cfg.VacuumInterval, cfg.VacuumTimeout = int64(f.vacuumDeadRows), f.vacuumInterval, f.vacuumTimeout
	cfg.JobRetention, cfg.WorkerRetention = f.jobRetention, f.workerRetention
	cfg.CleanupInterval, cfg.CleanupBatch = f.cleanupInterval, f.cleanupBatch
	// Lease maintenance must come several times per lease, or a short
	// -lease-ttl would lapse between renewals.
	cfg.LeaderInterval = min(cfg.LeaderInterval, f.leaseTTL/4)
	if f.lanes > f.concurrency {
		return cfg, usagef("-lanes %d is more than -concurrency %d: every lane runs at least one job", f.lanes, f.concurrency)
	}
	if f.adminToken != "" && f.adminAddr == "" {
		return cfg, usagef("-admin-token needs -admin-addr (the console it unlocks)")
	}
	if err := cfg.WithDefaults().Validate(); err != nil {
		return cfg, usagef("%s", configToFlags.Replace(err.Error()))
	}
	return cfg, nil
}

// zeroAs returns none for a flag set to zero: in a Config, whose zero
// fields take their defaults, none is what says zero.
func zeroAs[T comparable](v, none T) T {
	var zero T
	if v == zero {
		return none
	}
	return v
}

// configToFlags rewrites the worker's configuration errors in terms of the
// flags that set each field.
var configToFlags = strings.NewReplacer(
	"MaxConcurrent", "-concurrency",
	"MaxFetch", "-max-fetch",
	"MaxRetries", "-max-retries",
	"MaxSnoozes", "-max-snoozes",
	"PollInterval", "-poll-interval",
	"HeartbeatInterval", "-heartbeat-interval",
	"LeaseTTL", "-lease-ttl",
	"LeaderInterval", "the lease renewal interval (a quarter of -lease-ttl, at most 500ms)",
	"DeadWorkerThreshold", "-dead-threshold",
	"CallTimeout", "-call-timeout",
	"DrainTimeout", "-drain-timeout",
	"VacuumDeadRows", "-vacuum-dead-rows",
	"VacuumInterval", "-vacuum-interval",
	"VacuumTimeout", "-vacuum-timeout",
	"JobRetention", "-job-retention",
	"WorkerRetention", "-worker-retention",
	"CleanupInterval", "-cleanup-interval",
	"CleanupBatch", "-cleanup-batch",
	"backoff: base", "-retry-delay",
)

// parseQueues reads -queues: built-in queue names, each once.
func parseQueues(list string) ([]string, error) {
	var queues []string
	for q := range strings.SplitSeq(list, ",") {
		q = strings.TrimSpace(q)
		if q == "" {
			continue
		}
		if _, ok := builtinQueues[q]; !ok {
			return nil, usagef("-queues: no built-in handler for queue %q (built-in: %s)", q, strings.Join(builtinQueueNames(), ", "))
		}
		if slices.Contains(queues, q) {
			return nil, usagef("-queues: queue %q is listed twice", q)
		}
		queues = append(queues, q)
	}
	if len(queues) == 0 {
		return nil, usagef("-queues is empty: name at least one of %s", strings.Join(builtinQueueNames(), ", "))
	}
	return queues, nil
}

func (c *cli) runCmd(ctx context.Context, args []string) error {
	fs := newFlagSet("worker run", runSynopsis, c.stdout)
	var f runFlags
	f.register(fs)
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	log, err := f.log.logger(c.stderr)
	if err != nil {
		return err
	}
	// As the commands that write rows: a schema it cannot write is
	// refused, and a connection lost during that check (a restart, a
	// failover, pg_terminate_backend) is waited out within
	// -connect-timeout instead of ending the process.
	st, err := c.openWriterStore(ctx, &f.db, log)
	if stoppedWhileStarting(ctx, err) {
		log.Info("worker stopped before it started: a signal came while it connected; nothing ran, so nothing to drain")
		return nil
	}
	if err != nil {
		return err
	}
	defer st.Close()
	return c.serve(ctx, st, cfg, &f, log)
}

// stoppedWhileStarting reports whether err only says that the stop
// signal cut the startup short: a deployment that stops a worker it has
// just started (a rollout undone, a scale-down) asked for a shutdown,
// which with no job reserved is clean, not a failure.
func stoppedWhileStarting(stop context.Context, err error) bool {
	return err != nil && stop.Err() != nil && errors.Is(err, context.Canceled)
}

// serve runs the worker and the metrics server until ctx is done and the
// worker has drained.
func (c *cli) serve(ctx context.Context, st openedStore, cfg worker.Config, f *runFlags, log *slog.Logger) error {
	mp, reg, err := newMetrics()
	if err != nil {
		return err
	}
	defer mp.Shutdown(context.Background())

	sender := newWebhookSender(f.webhookAllowPrivate, f.webhookTimeout)
	defer sender.close()
	keys, err := f.keys.ring()
	if err != nil {
		return err
	}
	opts := worker.Options{Config: cfg, Logger: log, MeterProvider: mp, Lanes: f.lanes, Abandon: c.abandon, Encryption: keys}
	ctx, history, closeHistory, err := attachHistoryLog(ctx, f, &opts)
	if err != nil {
		return err
	}
	defer closeHistory()
	probe := newStoreProbe(st, time.Now)
	w, err := worker.New(probe, opts)
	if err != nil {
		return fmt.Errorf("start the worker: %w", err)
	}
	if err := registerHandlers(w, cfg, sender, f.webhookMaxAttempts); err != nil {
		return fmt.Errorf("start the worker: %w", err)
	}

	var running atomic.Bool
	if f.metricsAddr != "" {
		ops, err := startOpsServer(f.metricsAddr, reg, readiness(probe, &running, readinessStaleAfter(cfg.PollInterval)), log)
		if err != nil {
			return err
		}
		log.Info("serving /metrics, /healthz and /readyz", "addr", ops.addr())
		defer ops.shutdown(context.Background())
	}

	if f.adminAddr != "" {
		stopConsole, err := startConsole(st, consoleConfig{addr: f.adminAddr, token: f.adminToken}, log)
		if err != nil {
			return err
		}
		defer stopConsole()
	}

	stopNotice := context.AfterFunc(ctx, func() {
		log.Info("shutting down: draining running jobs; a second signal abandons the drain", "drain_timeout", cfg.DrainTimeout.String())
	})
	defer stopNotice()
	abandonNotice := context.AfterFunc(c.abandon, func() {
		log.Warn("second signal: abandoning the drain: cancelling running jobs and releasing them (they are retried); a third signal exits at once")
	})
	defer abandonNotice()

	log.Info("worker starting", "schema", st.Schema(), "queues", strings.Join(cfg.Queues, ","), "concurrency", cfg.MaxConcurrent)
	running.Store(true)
	err = w.Run(ctx)
	running.Store(false)
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("worker stopped: %w", err)
	}
	if c.abandon.Err() != nil {
		return errors.New("worker stopped without a clean drain: a second signal cut the running jobs short and released them")
	}
	if history != nil {
		if err := history.finish(st, f.db.connectTimeout, log); err != nil {
			return err
		}
	}
	log.Info("worker stopped after a clean drain")
	return nil
}

// readiness reports ready while the worker loop runs and its latest
// ticks reached the store.
func readiness(probe *storeProbe, running *atomic.Bool, staleAfter time.Duration) readinessCheck {
	return func(context.Context) error {
		if !running.Load() {
			return errors.New("the worker loop is not running")
		}
		return probe.ready(staleAfter)
	}
}
