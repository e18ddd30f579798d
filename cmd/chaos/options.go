package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tickwork/tickwork/internal/localpg"
	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/props"
)

// defaultRestartPG restarts the local cluster of the Debian packaging. The
// ls picks the one installed PostgreSQL version.
const defaultRestartPG = "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main restart"

// options are the settings of one chaos run.
type options struct {
	databaseURL   string
	duration      time.Duration // the chaos phase
	workers       int           // worker processes
	seed          uint64        // decides the fault plan, the enqueues and the webhook answers
	restartPG     string        // shell command restarting PostgreSQL; "" disables that fault
	skipWithoutDB bool          // no database outside CI: skip instead of failing
	schema        string        // "" makes a fresh one
	keepSchema    bool
	workerBin     string // "" builds cmd/worker
	workDir       string // "" makes a temporary directory, removed after a clean run
	settle        time.Duration
	verbose       bool
	concurrency   int
	leaseTTL      time.Duration
	deadAfter     time.Duration
	heartbeat     time.Duration
	poll          time.Duration
	retryDelay    time.Duration
	maxRetries    int
	drainTimeout  time.Duration
	hookTimeout   time.Duration
	// The workers' vacuum duty, so that property 16 is judged live too.
	vacuumDeadRows int
	vacuumInterval time.Duration
	mutant         string // planted bug the workers run with (internal/mutant)
	bouncerURL     string // "" connects the workers directly (see workerDB)
	// -failover: the run makes its own pg_auto_failover cluster (failover.go).
	failover     bool
	failoverStop time.Duration
	seeds        int
	cluster      *failoverRun // set by failoverMain for each of its runs
	netFaults    bool         // network faults through Toxiproxy instead of the process faults (netfaults.go)
}

// parseOptions reads the command line; env supplies the environment and
// finds the database no flag names.
func parseOptions(args []string, env localpg.Finder, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: chaos [flags]\n\n%s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	var o options
	restart, err := defaultRestartCmd(env.Getenv)
	if err != nil {
		return o, err
	}
	fs.StringVar(&o.databaseURL, "database-url", "", "PostgreSQL URL (default $DATABASE_URL, else "+localpg.DefaultURL+" when it answers)")
	fs.BoolVar(&o.skipWithoutDB, "skip-without-database", false, "when no database is found, say so and exit 0 instead of failing, unless CI is set")
	fs.DurationVar(&o.duration, "duration", 60*time.Second, "length of the chaos phase (quiescence comes after)")
	fs.IntVar(&o.workers, "workers", 4, "worker processes")
	fs.Uint64Var(&o.seed, "seed", 0, "seed of the fault plan, the enqueues and the webhook answers (0: from the clock; printed)")
	fs.StringVar(&o.restartPG, "restart-pg-cmd", restart, "shell command that restarts PostgreSQL once mid-run; \"\" disables it.\nWithout the flag: "+defaultRestartPG+"\nwhen CI is set or "+restartVar+"=1, else none")
	fs.StringVar(&o.bouncerURL, "pgbouncer-url", "", "run the workers' statements through this PgBouncer in transaction pool mode; they LISTEN on -database-url (docs/PGBOUNCER.md)")
	fs.StringVar(&o.schema, "schema", "", "schema to run in (default: a fresh chaos_<seed>_<random>); it must not exist yet unless it is empty")
	fs.BoolVar(&o.keepSchema, "keep-schema", false, "keep the schema after the run (it is also kept when a violation is found)")
	fs.StringVar(&o.workerBin, "worker-bin", "", "worker binary to run (default: go build ./cmd/worker)")
	fs.StringVar(&o.workDir, "work-dir", "", "directory for the processes' logs (default: a temporary one, removed after a clean run)")
	fs.DurationVar(&o.settle, "settle-timeout", 90*time.Second, "how long quiescence may take for every job to end")
	fs.BoolVar(&o.verbose, "v", false, "print each fault as it is injected")
	fs.IntVar(&o.concurrency, "concurrency", 8, "jobs at once per worker process")
	fs.DurationVar(&o.leaseTTL, "lease-ttl", 1500*time.Millisecond, "leader lease TTL")
	fs.DurationVar(&o.deadAfter, "dead-threshold", 4*time.Second, "silence after which a worker is declared dead")
	fs.DurationVar(&o.heartbeat, "heartbeat-interval", 400*time.Millisecond, "worker heartbeat interval")
	fs.DurationVar(&o.poll, "poll-interval", 250*time.Millisecond, "worker poll interval")
	fs.DurationVar(&o.retryDelay, "retry-delay", 200*time.Millisecond, "delay before a first retry (doubling after)")
	fs.IntVar(&o.maxRetries, "max-retries", 3, "retries of a job before it is abandoned")
	fs.DurationVar(&o.drainTimeout, "drain-timeout", 500*time.Millisecond, "the workers' drain timeout: slow webhooks outlast it and are cancelled")
	fs.DurationVar(&o.hookTimeout, "webhook-timeout", time.Second, "how long a webhook may take before the attempt is retried")
	fs.IntVar(&o.vacuumDeadRows, "vacuum-dead-rows", 20, "the workers' vacuum duty: VACUUM jobs at this many dead rows (0: off)")
	fs.DurationVar(&o.vacuumInterval, "vacuum-interval", 3*time.Second, "the vacuum duty's least time between vacuums")
	fs.BoolVar(&o.netFaults, "net-faults", false, "inject network faults through a Toxiproxy proxy per worker (latency, blackhole, reset_peer, bandwidth, slicer, a silent LISTEN connection) instead of the process faults")
	fs.StringVar(&o.mutant, "mutant", "", "run the workers with this planted bug (built with -tags mutants) to show the checks catch it")
	fs.BoolVar(&o.failover, "failover", false, "run against a pg_auto_failover cluster of the run's own (monitor and two nodes on loopback, synchronous replication)\nwith its faults instead: a planned failover, kill -9 of the primary's postmaster, the primary stopped (docs/FAILOVER.md)")
	fs.DurationVar(&o.failoverStop, "failover-stop", 60*time.Second, "with -failover, how long the primary stays stopped")
	fs.IntVar(&o.seeds, "seeds", 1, "with -failover, runs one after another on the same cluster, with seeds -seed, -seed+1, ...")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.seed == 0 {
		o.seed = uint64(time.Now().UnixNano())
	}
	if err := o.validate(); err != nil {
		return o, err
	}
	return o, findDatabase(&o, env)
}

const synopsis = `Runs several 'worker run' processes against PostgreSQL in real time while
jobs are enqueued continuously and faults are injected (SIGKILL and restart,
SIGSTOP past the dead threshold then SIGCONT, pg_terminate_backend of their
connections, one PostgreSQL restart), then lets every job end, stops the
workers gracefully and checks the history (final rows plus the processes'
logs) with the property checker of props/. Exits 1 on any violation.`

func (o options) validate() error {
	var errs []error
	if o.workers < 2 {
		errs = append(errs, fmt.Errorf("-workers %d: at least 2, so one is alive while another is stopped", o.workers))
	}
	if o.duration < 2*o.deadAfter {
		errs = append(errs, fmt.Errorf("-duration %v is too short: it must leave room for a SIGSTOP past -dead-threshold %v (at least twice that)", o.duration, o.deadAfter))
	}
	if o.deadAfter <= o.heartbeat || o.leaseTTL <= 0 || o.poll <= 0 || o.retryDelay <= 0 {
		errs = append(errs, fmt.Errorf("timings: -dead-threshold %v must exceed -heartbeat-interval %v; -lease-ttl, -poll-interval, -retry-delay must be positive",
			o.deadAfter, o.heartbeat))
	}
	if o.vacuumDeadRows < 0 || (o.vacuumDeadRows > 0 && o.vacuumInterval < time.Second) {
		errs = append(errs, fmt.Errorf("-vacuum-dead-rows %d must not be negative, and -vacuum-interval %v must be at least 1s while it is on", o.vacuumDeadRows, o.vacuumInterval))
	}
	if o.netFaults && (o.duration < o.deadAfter+10*time.Second || o.bouncerURL != "" || o.failover) {
		errs = append(errs, fmt.Errorf("-net-faults: -duration %v must be at least -dead-threshold %v + 10s, and neither -pgbouncer-url nor -failover goes with it", o.duration, o.deadAfter))
	}
	if o.mutant != "" && !mutant.Known(o.mutant) {
		errs = append(errs, fmt.Errorf("-mutant %q is unknown; known: %s", o.mutant, strings.Join(mutant.Names, ", ")))
	}
	if o.seeds < 1 || (o.seeds > 1 && !o.failover) || (o.failover && o.failoverStop <= 0) {
		errs = append(errs, fmt.Errorf("-seeds %d: at least 1, and more only with -failover; -failover-stop %v must be positive", o.seeds, o.failoverStop))
	}
	if strings.TrimSpace(o.schema) != o.schema {
		errs = append(errs, fmt.Errorf("-schema %q has surrounding spaces", o.schema))
	}
	return errors.Join(errs...)
}

// beatSchedule is the recurring job every worker runs: a noop every three
// seconds, so that leader changes and stalls meet schedule runs.
var beatSchedule = props.ScheduleSpec{Name: "beat", Cron: "*/3 * * * * *"}

// workerArgs are the flags of 'worker run' for a process named name
// logging its history to logPath.
func (o options) workerArgs(schema, name, logPath string) []string {
	args := []string{"run",
		"-schema", schema,
		"-queues", "webhook,noop",
		"-concurrency", fmt.Sprint(o.concurrency),
		"-max-retries", fmt.Sprint(o.maxRetries),
		"-retry-delay", o.retryDelay.String(),
		"-drain-timeout", o.drainTimeout.String(),
		"-metrics-addr", "",
		"-webhook-allow-private",
		"-webhook-timeout", o.hookTimeout.String(),
		"-poll-interval", o.poll.String(),
		"-heartbeat-interval", o.heartbeat.String(),
		"-lease-ttl", o.leaseTTL.String(),
		"-dead-threshold", o.deadAfter.String(),
		"-schedule", beatSchedule.Name + "|" + beatSchedule.Cron + "|noop|{\"beat\": true}",
		"-history-log", logPath,
		"-history-process", name,
	}
	if o.vacuumDeadRows > 0 {
		args = append(args, "-vacuum-dead-rows", fmt.Sprint(o.vacuumDeadRows), "-vacuum-interval", o.vacuumInterval.String())
	}
	return args
}
