// Command chaos is tickwork's live chaos run: several `worker run`
// processes against a real PostgreSQL, in real time, while jobs are
// enqueued continuously and faults are injected (SIGKILL and restart,
// SIGSTOP past the dead threshold then SIGCONT, pg_terminate_backend of the
// workers' connections, one PostgreSQL restart). A quiescence phase then
// lets every job end and stops the workers gracefully. The history — the
// final job and worker rows plus the events the workers logged with
// -history-log — is rebuilt with props.Reconstruct and checked with the
// same property checker as the simulator's histories.
//
// It prints the figures of the run (jobs enqueued and processed, faults
// injected per kind, processes, durations) and every violation with the
// rows involved, and exits 1 if there was any, or if a run of process
// faults did not exercise what it is for (checkExercised: every fault
// kind, the restart asked for, retries, failures, dead workers), 2 for a
// command-line mistake.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/localpg"
	"github.com/tickwork/tickwork/props"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := mainCode(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// mainCode runs the command and returns its exit status.
func mainCode(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, localpg.Default, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var skip skipError
	if errors.As(err, &skip) {
		fmt.Fprintln(stdout, skip)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "chaos: %v\n", err)
		return 2
	}
	if o.failover {
		return failoverMain(ctx, o, stdout, stderr)
	}
	sum, err := chaos(ctx, o, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "chaos: %v\n", err)
		return 1
	}
	if sum.found > 0 {
		return 1
	}
	return 0
}

// summary is what a run found, for the exit status and for tests.
type summary struct {
	found    int // violations and problems
	violated map[props.Property]int
	faults   [faultKinds]int
	figures  figures
}

// chaos carries out a whole run and returns what it found. An error means
// the run itself could not be carried out.
func chaos(ctx context.Context, o options, out io.Writer) (summary, error) {
	start := time.Now()
	r := &run{o: o, out: out, rnd: clockrng.NewRand(o.seed), schema: o.schema, failover: o.cluster}
	if r.schema == "" {
		r.schema = freshSchema(o.seed)
	}
	dir, tempDir, err := workDir(o.workDir)
	if err != nil {
		return summary{}, err
	}
	bin := o.workerBin
	if bin == "" {
		if bin, err = buildWorker(ctx, dir, o.mutant != ""); err != nil {
			return summary{}, err
		}
	}
	if r.db, err = openDriverDB(ctx, o.databaseURL, r.schema); err != nil {
		return summary{}, err
	}
	defer r.db.close()
	if out, err := migrate(ctx, bin, o.databaseURL, r.schema); err != nil {
		return summary{}, fmt.Errorf("worker migrate: %v\n%s", err, out)
	}
	if r.hook, err = startHookServer(o.seed, 3*o.hookTimeout/2); err != nil {
		return summary{}, err
	}
	defer r.hook.close()
	var env []string
	if o.mutant != "" {
		env = append(env, "TICKWORK_MUTANT="+o.mutant)
	}
	workerURL, poolerEnv := o.workerDB()
	env = append(env, poolerEnv...)
	r.fleet = newFleet(bin, dir, workerURL, r.schema, o.workers, env, func(name, logPath string) []string {
		return r.withOps(name, r.workerArgs(name, logPath))
	})
	if o.netFaults {
		if err := r.startNet(); err != nil {
			return summary{}, err
		}
		defer r.net.px.close()
	}
	fmt.Fprintf(out, "chaos: seed %d, schema %s, logs in %s\n", o.seed, r.schema, dir)
	if o.mutant != "" {
		fmt.Fprintf(out, "chaos: the workers run with the planted bug %q\n", o.mutant)
	}
	if o.bouncerURL != "" {
		fmt.Fprintln(out, "chaos: the workers' statements go through PgBouncer (-pgbouncer-url); they LISTEN on -database-url")
	}

	res, err := r.execute(ctx)
	if err != nil {
		r.killAll()
		return summary{}, fmt.Errorf("%w (logs in %s, schema %s kept)", err, dir, r.schema)
	}
	if err := writeHistory(filepath.Join(dir, "history.jsonl"), res.history); err != nil {
		return summary{}, err
	}
	if r.net != nil {
		r.netFigures = r.checkNet(res)
	}
	figs := count(res, r.enq, o.maxRetries)
	r.checkExercised(figs)
	sum := summary{found: len(res.violations) + len(r.problems), violated: map[props.Property]int{}, faults: r.counts, figures: figs}
	for _, v := range res.violations {
		sum.violated[v.Property]++
	}
	r.report(out, res, sum.figures, time.Since(start))
	found := sum.found
	if found == 0 && !o.keepSchema {
		if err := r.db.store.DropSchema(context.WithoutCancel(ctx)); err != nil {
			return summary{}, err
		}
	}
	if found > 0 && r.failover != nil {
		r.failover.c.saveLogs(dir)
	}
	if found == 0 && tempDir {
		removeWorkDir(dir)
	} else {
		fmt.Fprintf(out, "logs and history kept in %s\n", dir)
	}
	return sum, nil
}

// execute runs the chaos phase and the quiescence, then checks the
// history.
func (r *run) execute(ctx context.Context) (outcome, error) {
	if err := r.chaosPhase(ctx); err != nil {
		return outcome{}, fmt.Errorf("chaos phase: %w", err)
	}
	if err := r.quiesce(ctx); err != nil {
		return outcome{}, fmt.Errorf("quiescence: %w", err)
	}
	jobs, workers, err := r.db.readRows(ctx)
	if err != nil {
		return outcome{}, err
	}
	res, err := r.check(jobs, workers)
	if err != nil {
		return outcome{}, err
	}
	for _, id := range missing(r.enq.ids, jobs) {
		r.problems = append(r.problems, problem{what: fmt.Sprintf("job %s was enqueued but has no row", id)})
	}
	return res, nil
}

// freshSchema names a schema no other run uses.
func freshSchema(seed uint64) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("chaos_%d_%s", seed%1_000_000, hex.EncodeToString(b[:]))
}

// workDir returns dir, or a new temporary directory when dir is empty.
func workDir(dir string) (string, bool, error) {
	if dir != "" {
		return dir, false, os.MkdirAll(dir, 0o755)
	}
	d, err := os.MkdirTemp("", "tickwork-chaos-")
	return d, true, err
}

// buildWorker builds cmd/worker into dir, with the planted bugs if
// mutants.
func buildWorker(ctx context.Context, dir string, mutants bool) (string, error) {
	bin := filepath.Join(dir, "worker")
	args := []string{"build", "-o", bin}
	if mutants {
		args = append(args, "-tags", "mutants")
	}
	out, err := exec.CommandContext(ctx, "go", append(args, "github.com/tickwork/tickwork/cmd/worker")...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build cmd/worker: %v\n%s", err, out)
	}
	return bin, nil
}

// migrate creates the schema's tables with the binary under test.
func migrate(ctx context.Context, bin, dbURL, schema string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, "migrate", "-schema", schema)
	cmd.Env = append(cleanEnv(), "DATABASE_URL="+dbURL)
	return cmd.CombinedOutput()
}
