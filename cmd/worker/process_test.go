package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tickwork/tickwork/internal/syncbuf"
)

// built is the binary buildWorker made, once for the test process: each
// end-to-end test building its own took seconds of the package's time.
var built struct {
	once sync.Once
	dir  string // removed by TestMain
	path string
	err  error
}

// buildWorker builds the binary from this package, the first time it is
// called, and returns its path.
func buildWorker(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "tickwork-worker-test-"); built.err != nil {
			return
		}
		path := filepath.Join(built.dir, "worker")
		if out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		built.path = path
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// removeBuiltWorker removes buildWorker's directory, if it made one.
func removeBuiltWorker() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer = syncbuf.Buffer

// proc is one running worker process.
type proc struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	stdout lockedBuffer
	stderr lockedBuffer
	done   chan struct{}
	code   int
}

// processEnv is the test's environment without the variables the binary
// reads, so that a developer's settings cannot change what a test runs.
func processEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "DATABASE_URL=") || strings.HasPrefix(kv, "TICKWORK_") || strings.HasPrefix(kv, "PG") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// startProc starts the binary with args; the test's cleanup kills it if it
// is still running.
func startProc(t *testing.T, bin, name string, args ...string) *proc {
	t.Helper()
	return startProcStdin(t, bin, name, nil, args...)
}

// startProcStdin is startProc with stdin as the process's standard input
// (nil for none).
func startProcStdin(t *testing.T, bin, name string, stdin io.Reader, args ...string) *proc {
	t.Helper()
	return startProcWith(t, bin, name, stdin, nil, args...)
}

// startProcEnv is startProc with env (NAME=value) added to the process's
// environment.
func startProcEnv(t *testing.T, bin, name string, env []string, args ...string) *proc {
	t.Helper()
	return startProcWith(t, bin, name, nil, env, args...)
}

func startProcWith(t *testing.T, bin, name string, stdin io.Reader, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{t: t, name: name, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(processEnv(), env...)
	p.cmd.Stdin = stdin
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		defer close(p.done)
		err := p.cmd.Wait()
		var exit *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &exit):
			p.code = exit.ExitCode()
		default:
			p.code = -1
		}
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("%s stderr:\n%s", p.name, p.stderr.String())
		}
	})
	return p
}

// procTimeout only guards against a hung test; no test asserts durations.
const procTimeout = 60 * time.Second

// wait returns the exit status.
func (p *proc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(procTimeout):
		p.t.Fatalf("%s did not exit within %v; stderr:\n%s", p.name, procTimeout, p.stderr.String())
		return 0
	}
}

func (p *proc) signal(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signal %s to %s: %v", sig, p.name, err)
	}
}

// waitStderr waits until the process has written want to stderr.
func (p *proc) waitStderr(want string) {
	p.t.Helper()
	eventually(p.t, fmt.Sprintf("%s writes %q", p.name, want), func() bool {
		select {
		case <-p.done:
			p.t.Fatalf("%s exited (status %d) before writing %q; stderr:\n%s", p.name, p.code, want, p.stderr.String())
		default:
		}
		return strings.Contains(p.stderr.String(), want)
	})
}

// runProc runs the binary to completion.
func runProc(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	p := startProc(t, bin, "worker "+args[0], args...)
	code = p.wait()
	return code, p.stdout.String(), p.stderr.String()
}

// mustRun runs the binary and fails the test unless it exits 0; it
// returns standard output.
func mustRun(t *testing.T, bin string, args ...string) string {
	t.Helper()
	code, stdout, stderr := runProc(t, bin, args...)
	if code != 0 {
		t.Fatalf("worker %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

// eventually polls cond until it holds; the deadline only guards against
// a hung test.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), procTimeout)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting until %s", what)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stopAll sends SIGTERM to every worker and checks that each drains and
// exits 0.
func stopAll(t *testing.T, workers []*proc) {
	t.Helper()
	for _, w := range workers {
		w.signal(syscall.SIGTERM)
	}
	for _, w := range workers {
		if code := w.wait(); code != exitOK {
			t.Errorf("%s exited %d after SIGTERM, want 0", w.name, code)
		}
	}
}

// exited reports whether the process has exited, without waiting.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}
