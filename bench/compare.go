package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/tickwork/tickwork/store"
)

// compareFlags configure the side-by-side run.
type compareFlags struct {
	commonFlags
	waiting       []int
	inflight      []int
	process       int
	batch         int
	rounds        int
	samples       int
	riverCooldown time.Duration
	lanes         int
	noHistory     bool // -tickwork-history none
	systems       []string
	graphileProcs int
	maxRun        time.Duration
}

// systemNames are the systems compare knows, in the order it runs them.
var systemNames = []string{"tickwork", "river", "graphile", "graphile-unbatched"}

func parseCompare(args []string, stderr io.Writer) (compareFlags, error) {
	var f compareFlags
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	waiting := fs.String("waiting", "100000,1000000", "comma-separated backlogs: jobs pre-inserted before each throughput run")
	inflight := fs.String("inflight", "100,1000", "comma-separated concurrencies: jobs in flight in the one worker process")
	fs.IntVar(&f.process, "process", 100_000, "jobs each throughput run processes, inserted before the run beyond the -waiting backlog: the figure is the rate while at least -waiting jobs wait")
	fs.IntVar(&f.batch, "batch", 10_000, "jobs per bulk-enqueue call (one COPY each)")
	fs.IntVar(&f.rounds, "rounds", 3, "runs of each system per figure, the order alternating; the summary gives medians, so a single slow spell of a shared machine does not decide a figure")
	fs.IntVar(&f.samples, "latency-samples", 200, "single enqueues timed on an idle worker; 0 skips the latency figure")
	fs.IntVar(&f.lanes, "lanes", 0, "tickwork's lanes (worker.Options.Lanes) in the throughput runs; 0 is the rule of thumb, throughputLanes")
	history := fs.String("tickwork-history", "keep", "tickwork's queue history in the throughput runs: keep (completed rows stay for retention) or none (each completion deletes its row, as graphile-worker does)")
	fs.DurationVar(&f.riverCooldown, "river-fetch-cooldown", time.Millisecond, "River's FetchCooldown (River's default is 100 ms, which caps it at 10 fetches a second)")
	systems := fs.String("systems", strings.Join(systemNames, ","), "comma-separated systems to run beside tickwork: river, graphile (graphile-worker with its published throughput settings), graphile-unbatched (its defaults)")
	fs.DurationVar(&f.maxRun, "max-run", time.Minute, "a throughput run stops after this long even short of -process jobs (graphile-worker unbatched runs about 400 jobs/s here); its rate is over the jobs it ran")
	fs.IntVar(&f.graphileProcs, "graphile-processes", 4, "graphile-worker processes sharing a throughput run's jobs in flight (its published figures ran 4)")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	keep, err := store.ParseHistory(*history)
	if err != nil {
		return f, fmt.Errorf("-tickwork-history: %w", err)
	}
	f.noHistory = !keep
	if f.systems, err = systemList(*systems); err != nil {
		return f, fmt.Errorf("-systems: %w", err)
	}
	if f.graphileProcs < 1 || f.maxRun <= 0 {
		return f, fmt.Errorf("-graphile-processes and -max-run must be positive")
	}
	if f.waiting, err = intList(*waiting); err != nil {
		return f, fmt.Errorf("-waiting: %w", err)
	}
	if f.inflight, err = intList(*inflight); err != nil {
		return f, fmt.Errorf("-inflight: %w", err)
	}
	if f.process < 1 || f.batch < 1 || f.rounds < 1 || f.samples < 0 || f.lanes < 0 {
		return f, fmt.Errorf("-process, -batch and -rounds must be at least 1, -latency-samples and -lanes not negative")
	}
	return f, f.validate()
}

// systemList parses -systems: known names, tickwork always first.
func systemList(s string) ([]string, error) {
	out := []string{"tickwork"}
	for part := range strings.SplitSeq(s, ",") {
		name := strings.TrimSpace(part)
		if !slices.Contains(systemNames, name) {
			return nil, fmt.Errorf("unknown system %q: want some of %s", name, strings.Join(systemNames, ", "))
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("%q names nothing to compare tickwork with", s)
	}
	return out, nil
}

// openers returns the openers of f's systems.
func (f compareFlags) openers() []opener {
	var out []opener
	for _, name := range f.systems {
		switch name {
		case "tickwork":
			out = append(out, tickworkOpener(f.lanes, f.noHistory))
		case "river":
			out = append(out, riverOpener(f.riverCooldown))
		case "graphile":
			out = append(out, graphileOpener(true, f.graphileProcs))
		case "graphile-unbatched":
			out = append(out, graphileOpener(false, f.graphileProcs))
		}
	}
	return out
}

// intList parses "100,1000" (underscores allowed: 1_000_000).
func intList(s string) ([]int, error) {
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(part), "_", ""))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a list of positive numbers", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func runCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseCompare(args, stderr)
	if err != nil {
		return err
	}
	started := time.Now()
	if err := printServer(ctx, stdout, f.url); err != nil {
		return err
	}
	lanes := "lanes (worker.Options.Lanes) by the rule of thumb: two from 100 jobs in flight, one more per 500 beyond 1,000"
	if f.lanes > 0 {
		lanes = fmt.Sprintf("%d lanes (worker.Options.Lanes, -lanes)", f.lanes)
	}
	history := "history kept (completed rows stay), span from the completed rows"
	if f.noHistory {
		history = "history none (-tickwork-history: each completion deletes its row), span from the handlers' clocks"
	}
	fmt.Fprintf(stdout, "tickwork: MaxFetch = jobs in flight, %s, DefaultConfig for latency, %s\n", lanes, history)
	fmt.Fprintf(stdout, "River: FetchCooldown %v, other settings default\n", f.riverCooldown)
	fmt.Fprintf(stdout, "graphile-worker 0.17 (Node.js %s): %d processes share the jobs in flight; graphile: local queue 500, completions and failures batched at once (its published settings); graphile-unbatched: its defaults; span and latency from its processes' clocks, as it keeps no finished job\n\n", nodeVersion(ctx), f.graphileProcs)
	meterDB, err := pgxpool.New(ctx, f.url)
	if err != nil {
		return fmt.Errorf("connect to meter the systems' backends: %w", err)
	}
	defer meterDB.Close()
	c := &comparison{f: f, out: stdout, openers: f.openers(), meterDB: meterDB}
	for _, waiting := range f.waiting {
		for _, inflight := range f.inflight {
			if err := c.throughput(ctx, waiting, inflight); err != nil {
				return err
			}
		}
	}
	if f.samples > 0 {
		if err := c.latency(ctx); err != nil {
			return err
		}
	}
	c.results.print(stdout)
	fmt.Fprintf(stdout, "\ntotal time %v\n", time.Since(started).Round(time.Second))
	return nil
}

// printServer prints what the figures depend on: the server and whether
// commits wait for the disk.
func printServer(ctx context.Context, w io.Writer, url string) error {
	for _, name := range []string{"server_version", "synchronous_commit", "autovacuum"} {
		v, err := serverSetting(ctx, url, name)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s = %s\n", name, v)
	}
	return nil
}

// comparison runs the systems in alternating order and collects figures.
type comparison struct {
	f       compareFlags
	out     io.Writer
	openers []opener
	flips   int
	results results
	// meterDB reads which backends are a system's (backendMeter): its
	// own sessions carry no application name of a system's.
	meterDB *pgxpool.Pool
}

// order returns the openers, reversed on every other call.
func (c *comparison) order() []opener {
	c.flips++
	if c.flips%2 == 0 {
		out := slices.Clone(c.openers)
		slices.Reverse(out)
		return out
	}
	return c.openers
}

// withSystem opens a system on a fresh schema, calls fn with the system
// and the schema's name, and drops the schema.
func (c *comparison) withSystem(ctx context.Context, open opener, fn func(sys system, schema string) error) error {
	schema := c.f.prefix + fmt.Sprint(c.flips)
	if err := dropSchema(ctx, c.f.url, schema); err != nil {
		return err
	}
	// Every session of the system carries the name its backends are
	// metered by (a tickwork store's listener names itself).
	sys, err := open(ctx, withAppName(c.f.url, sessionName(schema)), schema)
	if err != nil {
		return err
	}
	err = fn(sys, schema)
	if closeErr := sys.Close(context.WithoutCancel(ctx)); err == nil {
		err = closeErr
	}
	return err
}

func (c *comparison) throughput(ctx context.Context, waiting, inflight int) error {
	figure := fmt.Sprintf("throughput, %d in flight, %d waiting (jobs/s)", inflight, waiting)
	bulk := fmt.Sprintf("bulk enqueue, %d jobs in batches of %d (jobs/s)", waiting, c.f.batch)
	for range c.f.rounds {
		for _, open := range c.order() {
			err := c.withSystem(ctx, open, func(sys system, schema string) error {
				t0 := time.Now()
				if err := sys.Insert(ctx, waiting, c.f.batch); err != nil {
					return err
				}
				insert := time.Since(t0)
				c.results.add(bulk, sys.Name(), float64(waiting)/insert.Seconds())
				// As many again as the run processes, behind the backlog,
				// so that at least waiting jobs wait until the run ends.
				if err := sys.Insert(ctx, c.f.process, c.f.batch); err != nil {
					return err
				}
				if err := checkpoint(ctx, c.f.url); err != nil {
					return err
				}
				meter := meterRun(ctx, c.meterDB, schema)
				if err := c.work(ctx, sys, inflight); err != nil {
					return err
				}
				used := meter()
				if w, ok := sys.(workerProcesses); ok {
					used.Self, used.SelfSeen = w.WorkerCPU(), true
				}
				sp, err := sys.Span(ctx)
				if err != nil {
					return err
				}
				c.results.add(figure, sys.Name(), sp.rate())
				fmt.Fprintf(c.out, "%-8s %d waiting (inserted in %v), %d in flight: %d jobs completed in %v = %.0f jobs/s (%s, first start to last completion)%s\n",
					sys.Name(), waiting, insert.Round(time.Millisecond), inflight, sp.n, sp.last.Sub(sp.first).Round(time.Millisecond), sp.rate(), clockOf(sys), used.report(sp.n))
				what := fmt.Sprintf("%d in flight, %d waiting", inflight, waiting)
				addCPU(&c.results, used.Reading, what, sys.Name(), sp.n)
				if used.BackendsSeen {
					c.results.add("its own backends' processor time, "+what+" (µs/job)", sys.Name(), perJob(used.Backends, sp.n))
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("%s: %w", figure, err)
			}
		}
	}
	return nil
}

// work runs sys's worker until it ran -process jobs or -max-run passed.
func (c *comparison) work(ctx context.Context, sys system, inflight int) error {
	runCtx, cancel := context.WithTimeout(ctx, c.f.maxRun)
	defer cancel()
	err := sys.Work(runCtx, inflight, c.f.process)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		fmt.Fprintf(c.out, "%-8s stopped after -max-run %v, short of %d jobs\n", sys.Name(), c.f.maxRun, c.f.process)
		return nil
	}
	return err
}

func (c *comparison) latency(ctx context.Context) error {
	for range c.f.rounds {
		for _, open := range c.order() {
			err := c.withSystem(ctx, open, func(sys system, _ string) error {
				delays, err := sys.Latency(ctx, c.f.samples)
				if err != nil {
					return err
				}
				p50, p99 := quantile(delays, 0.5), quantile(delays, 0.99)
				c.results.add("enqueue-to-start p50, idle worker (ms)", sys.Name(), ms(p50))
				c.results.add("enqueue-to-start p99, idle worker (ms)", sys.Name(), ms(p99))
				fmt.Fprintf(c.out, "%-8s enqueue-to-start over %d single enqueues on an idle worker: p50 %v, p99 %v\n", sys.Name(), len(delays), p50, p99)
				return nil
			})
			if err != nil {
				return fmt.Errorf("enqueue-to-start: %w", err)
			}
		}
	}
	return nil
}

// clockOf names the clock of sys's span and latency figures: the
// database's, unless sys keeps no finished jobs (workerProcesses).
func clockOf(sys system) string {
	if _, ok := sys.(workerProcesses); ok {
		return "worker processes' clocks"
	}
	if t, ok := sys.(*tickworkSystem); ok && t.noHistory {
		return "its handlers' clock, no history kept"
	}
	return "database time"
}

// workerProcesses is a system whose workers are processes of their own:
// its worker processor time is theirs, not the bench's, and its span and
// latency come from their clocks, the machine's.
type workerProcesses interface {
	WorkerCPU() time.Duration
}

// nodeVersion is what node --version prints, or "not found".
func nodeVersion(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "node", "--version").Output()
	if err != nil {
		return "not found"
	}
	return strings.TrimSpace(string(out))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
