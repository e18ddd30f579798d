package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// graphileSystem is graphile-worker (npm, run with the machine's Node.js)
// on its own schema. Its workers are Node processes running
// graphile/worker.mjs; the bench enqueues through its SQL function
// add_jobs, as a Node client's addJobs does.
type graphileSystem struct {
	url, schema string
	tables      string // the quoted schema
	pool        *pgxpool.Pool
	batched     bool // the published throughput settings, else defaults
	processes   int  // worker processes in a throughput run
	last        []graphileReport
	cpu         time.Duration // the last Work's Node processes' processor time
}

// graphileDir holds package.json, its lockfile and worker.mjs; the bench
// runs from the bench directory (cd bench && go run .).
const graphileDir = "graphile"

// graphileOpener opens graphile-worker with its published throughput
// settings (batched) or its defaults, processes Node processes sharing
// the jobs in flight of a throughput run.
func graphileOpener(batched bool, processes int) opener {
	return func(ctx context.Context, url, schema string) (system, error) {
		if err := ensureGraphile(ctx); err != nil {
			return nil, err
		}
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("graphile-worker: connect: %w", err)
		}
		s := &graphileSystem{url: url, schema: schema, tables: pgx.Identifier{schema}.Sanitize(), pool: pool, batched: batched, processes: processes}
		if out, err := s.node(ctx, "migrate", schema).CombinedOutput(); err != nil {
			pool.Close()
			return nil, fmt.Errorf("graphile-worker: migrate schema %s: %v: %s", schema, err, out)
		}
		return s, nil
	}
}

// ensureGraphile installs graphile/'s locked packages when they are
// missing (npm ci) and checks that Node.js is there.
func ensureGraphile(ctx context.Context) error {
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("graphile-worker needs Node.js (node) on PATH: %w", err)
	}
	if _, err := os.Stat(filepath.Join(graphileDir, "worker.mjs")); err != nil {
		return fmt.Errorf("graphile-worker: %s/worker.mjs not found: run the bench from its directory (cd bench && go run . compare)", graphileDir)
	}
	if _, err := os.Stat(filepath.Join(graphileDir, "node_modules", "graphile-worker")); err == nil {
		return nil
	}
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = graphileDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("graphile-worker: npm ci in %s: %v: %s", graphileDir, err, out)
	}
	return nil
}

// node is worker.mjs with args, on the bench's database, killed if ctx
// ends first.
func (s *graphileSystem) node(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "node", append([]string{"worker.mjs"}, args...)...)
	cmd.Dir = graphileDir
	cmd.Env = append(os.Environ(), "DATABASE_URL="+s.url)
	return cmd
}

func (s *graphileSystem) Name() string {
	if s.batched {
		return "graphile"
	}
	return "graphile-unbatched"
}

func (s *graphileSystem) Insert(ctx context.Context, n, batch int) error {
	insert := "SELECT count(*) FROM " + s.tables + ".add_jobs(ARRAY(SELECT ROW('noop', p, NULL, NULL, NULL, NULL, NULL, NULL)::" +
		s.tables + ".job_spec FROM json_array_elements($1::json) AS p))"
	return insertBatches(n, batch, func(k int) error {
		payloads := "[" + strings.TrimSuffix(strings.Repeat("{},", k), ",") + "]"
		_, err := s.pool.Exec(ctx, insert, payloads)
		return err
	})
}

// graphileReport is what a worker process prints when it stops.
type graphileReport struct {
	Ran   int   `json:"ran"`
	First int64 `json:"first"` // µs since the epoch
	Last  int64 `json:"last"`
}

// Work runs s.processes Node processes, sharing inflight jobs in flight,
// until together they report stopAfter jobs run, then stops them
// gracefully and keeps their reports for Span and their processor time
// for WorkerCPU.
func (s *graphileSystem) Work(ctx context.Context, inflight, stopAfter int) error {
	// Each process reports every step jobs: often enough to stop near
	// stopAfter, seldom enough to cost nothing.
	step := min(1000, max(1, stopAfter/100))
	g := &graphileRun{progress: make(chan int, 64)}
	procs := min(s.processes, inflight)
	var err error
	for i := range procs {
		concurrency := inflight / procs
		if i < inflight%procs {
			concurrency++
		}
		// Not killed when ctx ends: stop ends them gracefully.
		if err = g.start(s.node(context.WithoutCancel(ctx), "work", s.schema, fmt.Sprint(concurrency), boolArg(s.batched), fmt.Sprint(step))); err != nil {
			break
		}
	}
	if err == nil {
		err = awaitProgress(ctx, g.progress, stopAfter)
	}
	s.last, s.cpu = g.stop()
	if err == nil {
		err = g.err
	}
	return err
}

// graphileRun is a throughput run's worker processes.
type graphileRun struct {
	cmds     []*exec.Cmd
	stdins   []io.Closer
	reports  []*graphileReport
	progress chan int
	readers  sync.WaitGroup
	err      error // the first process that failed
}

// start starts one worker process, reading its progress and report.
func (g *graphileRun) start(cmd *exec.Cmd) error {
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("graphile-worker: start worker process: %w", err)
	}
	r := &graphileReport{}
	g.cmds, g.stdins, g.reports = append(g.cmds, cmd), append(g.stdins, stdin), append(g.reports, r)
	g.readers.Add(1)
	go func() {
		defer g.readers.Done()
		readProgress(out, g.progress, r)
	}()
	return nil
}

// stop ends every process gracefully, closing its standard input (which a
// process still starting cannot miss, where it could a signal), and
// returns their reports and processor time.
func (g *graphileRun) stop() ([]graphileReport, time.Duration) {
	go func() {
		for range g.progress { // the processes run on until they stop
		}
	}()
	for _, stdin := range g.stdins {
		_ = stdin.Close()
	}
	g.readers.Wait()
	close(g.progress)
	var cpu time.Duration
	reports := make([]graphileReport, len(g.cmds))
	for i, cmd := range g.cmds {
		if err := cmd.Wait(); err != nil && g.err == nil {
			g.err = fmt.Errorf("graphile-worker: worker process: %w", err)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		reports[i] = *g.reports[i]
	}
	return reports, cpu
}

// boolArg is worker.mjs's form of a flag: "1" or "0".
func boolArg(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// readProgress sends the count of each "+N" line of a worker process to
// progress and reads its final report into r.
func readProgress(out io.Reader, progress chan<- int, r *graphileReport) {
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if n, err := strconv.Atoi(strings.TrimPrefix(line, "+")); err == nil && strings.HasPrefix(line, "+") {
			progress <- n
			continue
		}
		_ = json.Unmarshal([]byte(line), r)
	}
}

// awaitProgress waits until the counts sent on progress reach n.
func awaitProgress(ctx context.Context, progress <-chan int, n int) error {
	for got := 0; got < n; {
		select {
		case k := <-progress:
			got += k
		case <-time.After(time.Minute):
			return fmt.Errorf("graphile-worker: no progress for a minute after %d jobs", got)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// WorkerCPU is the processor time of the last Work's worker processes,
// which are Node's, not the bench's own.
func (s *graphileSystem) WorkerCPU() time.Duration { return s.cpu }

// Span is read from the worker processes' reports: graphile-worker keeps
// no finished job. Their clocks are the machine's, as the database's is.
func (s *graphileSystem) Span(context.Context) (span, error) {
	var sp span
	for _, r := range s.last {
		if r.Ran == 0 {
			continue
		}
		first, last := time.UnixMicro(r.First), time.UnixMicro(r.Last)
		if sp.n == 0 || first.Before(sp.first) {
			sp.first = first
		}
		if last.After(sp.last) {
			sp.last = last
		}
		sp.n += r.Ran
	}
	if sp.n == 0 {
		return span{}, errors.New("graphile-worker: the worker processes reported no job run")
	}
	return sp, nil
}

func (s *graphileSystem) Latency(ctx context.Context, samples int) ([]time.Duration, error) {
	out, err := s.node(ctx, "latency", s.schema, fmt.Sprint(samples)).Output()
	if err != nil {
		return nil, fmt.Errorf("graphile-worker: latency run: %w", err)
	}
	var r struct {
		Delays []int64 `json:"delays"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("graphile-worker: latency run printed %q: %w", out, err)
	}
	delays := make([]time.Duration, len(r.Delays))
	for i, us := range r.Delays {
		delays[i] = time.Duration(us) * time.Microsecond
	}
	slices.Sort(delays)
	return delays, nil
}

func (s *graphileSystem) Close(ctx context.Context) error {
	s.pool.Close()
	return dropSchema(ctx, s.url, s.schema)
}
