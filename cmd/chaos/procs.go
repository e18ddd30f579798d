package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store/pg"
)

// slot is one worker process name (w1, w2, ...) and its current life: a
// killed process is started again under the same name, as the same
// "process" of the history, with a new log file.
type slot struct {
	name string
	life int
	cmd  *exec.Cmd
	done chan struct{} // closed once the current life exited
	err  error         // the exit error once done

	stopped    bool      // SIGSTOPped, waiting for its SIGCONT
	contAt     time.Time // when to SIGCONT it
	expectExit bool      // we signalled it to exit
	draining   bool      // SIGTERMed mid-run: start it again once it exited
	restartAt  time.Time // when to start it again (zero: not waiting)
	startedAt  time.Time // when its current life began
	logs       []string  // history logs of every life
	stderrs    []string
}

// fleet starts and signals the worker processes of a run.
type fleet struct {
	bin    string
	dir    string
	env    []string
	args   func(name, logPath string) []string
	url    string
	schema string
	slots  []*slot
	starts int
}

func newFleet(bin, dir, dbURL, schema string, n int, env []string, args func(name, logPath string) []string) *fleet {
	f := &fleet{bin: bin, dir: dir, env: append(cleanEnv(), env...), args: args, url: dbURL, schema: schema}
	for i := 1; i <= n; i++ {
		f.slots = append(f.slots, &slot{name: fmt.Sprintf("w%d", i)})
	}
	return f
}

// cleanEnv is this process's environment without what would override the
// flags given to the workers.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "DATABASE_URL=") || strings.HasPrefix(kv, "TICKWORK_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// appName is the application_name of a worker's pool connections, so that
// pg_terminate_backend can aim at one process; its listener is named by
// the store ("tickwork listen <schema>").
func (f *fleet) appName(s *slot) string { return workerAppName(f.schema, s.name) }

// workerAppName is the application_name of worker name's pool.
func workerAppName(schema, name string) string { return "chaos-" + schema + "-" + name }

// start begins a new life of s.
func (f *fleet) start(s *slot) error {
	s.life++
	base := filepath.Join(f.dir, fmt.Sprintf("%s.%d", s.name, s.life))
	logPath, errPath := base+".history.jsonl", base+".stderr"
	stderr, err := os.Create(errPath)
	if err != nil {
		return err
	}
	defer stderr.Close()
	cmd := exec.Command(f.bin, f.args(s.name, logPath)...)
	cmd.Env = append(f.env, "DATABASE_URL="+withAppName(f.url, f.appName(s)))
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.name, err)
	}
	f.starts++
	s.cmd, s.done, s.err, s.startedAt = cmd, make(chan struct{}), nil, time.Now()
	s.stopped, s.expectExit, s.draining, s.restartAt = false, false, false, time.Time{}
	s.logs, s.stderrs = append(s.logs, logPath), append(s.stderrs, errPath)
	done := s.done
	go func() {
		err := cmd.Wait()
		s.err = err // read only after done is closed
		close(done)
	}()
	return nil
}

// withAppName sets application_name in a URL or key=value connection
// string.
func withAppName(conn, name string) string { return pg.WithParam(conn, "application_name", name) }

// alive reports whether the current life of s is running (stopped or not).
func (s *slot) alive() bool {
	if s.cmd == nil {
		return false
	}
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// handlesSignals reports whether the current life has surely reached the
// binary's main, which sets the SIGTERM handler first: it has opened its
// history log (after connecting), or it began long enough ago (a worker
// still connecting handles SIGTERM too, and exits 0).
func (s *slot) handlesSignals() bool {
	if time.Since(s.startedAt) > signalsHandledAfter {
		return true
	}
	if len(s.logs) == 0 {
		return false
	}
	_, err := os.Stat(s.logs[len(s.logs)-1])
	return err == nil
}

// signalsHandledAfter is far more than a process takes from exec to its
// main's first line, on a loaded machine too.
const signalsHandledAfter = 2 * time.Second

func (s *slot) signal(sig syscall.Signal) error {
	if err := s.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("%s %s: %w", sig, s.name, err)
	}
	return nil
}

// kill SIGKILLs s and waits for it to exit.
func (s *slot) kill() error {
	s.expectExit = true
	if err := s.signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-s.done
	s.stopped = false
	return nil
}

// exitCode is the exit status of an exited life, -1 if it was signalled.
func (s *slot) exitCode() int {
	var exit *exec.ExitError
	if errors.As(s.err, &exit) {
		return exit.ExitCode()
	}
	if s.err != nil {
		return -1
	}
	return 0
}

// stderrTail returns the last lines of the current life's standard error.
func (s *slot) stderrTail(lines int) string {
	if len(s.stderrs) == 0 {
		return ""
	}
	b, err := os.ReadFile(s.stderrs[len(s.stderrs)-1])
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}

// inFlight counts the executions the current life has started and not
// ended, as its history log says so far.
func (s *slot) inFlight() int {
	if len(s.logs) == 0 {
		return 0
	}
	events, _, err := loadLog(s.logs[len(s.logs)-1])
	if err != nil {
		return 0
	}
	open := map[ulid.ULID]bool{}
	for _, e := range events {
		switch e.Kind {
		case props.ExecStarted:
			open[e.Job] = true
		case props.ExecEnded:
			delete(open, e.Job)
		}
	}
	return len(open)
}
