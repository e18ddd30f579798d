package main

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// startInProcess runs the binary's main with args in the background until
// the returned stop, and returns the console's base URL once it listens.
func startInProcess(t *testing.T, args ...string) (base string, stop func() int) {
	t.Helper()
	base, _, stop = startInProcessLog(t, args...)
	return base, stop
}

// startInProcessLog is startInProcess also returning what the binary
// writes.
func startInProcessLog(t *testing.T, args ...string) (base string, out *lockedBuffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr lockedBuffer
	c := &cli{stdout: &stderr, stderr: &stderr, env: fakeEnv(nil), environ: func() []string { return nil }, abandon: context.Background()}
	done := make(chan int, 1)
	go func() { done <- c.main(ctx, args) }()
	stop = sync.OnceValue(func() int {
		cancel()
		code := <-done
		if code != exitOK {
			t.Logf("output:\n%s", stderr.String())
		}
		return code
	})
	listening := regexp.MustCompile(`url=http://(?:127\.0\.0\.1|0\.0\.0\.0|\[::\])(:\d+/)`)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			return "http://127.0.0.1" + m[1], &stderr, stop
		}
	}
	code := stop()
	t.Fatalf("the console did not report its address; exit %d\n%s", code, stderr.String())
	return "", nil, nil
}

// TestConsoleCommand serves the console on a free port, reads a page and
// its JSON, sees an action refused (no token: read-only), and stops on
// cancellation with status 0.
func TestConsoleCommand(t *testing.T) {
	st := pgtest.Open(t, nil)
	base, stop := startInProcess(t, "console", "-addr", "127.0.0.1:0", "-database-url", pgtest.URL(t), "-schema", st.Schema())
	defer stop()
	if code, body := get(t, base+"jobs"); code != http.StatusOK || !strings.Contains(body, "No job matches") {
		t.Errorf("GET /jobs: %d\n%.300s", code, body)
	}
	if code, body := get(t, base+"api/"); code != http.StatusOK || !strings.Contains(body, `"queues"`) {
		t.Errorf("GET /api/: %d %s", code, body)
	}
	resp, err := http.Post(base+"api/jobs/01ARZ3NDEKTSV4RRFFQ69G5FAV/cancel", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cancel without an admin token: %s, want 403", resp.Status)
	}
	if code := stop(); code != exitOK {
		t.Errorf("exit %d after cancellation, want 0", code)
	}
}

// TestRunServesTheConsole: worker run -admin-addr shows the running
// worker itself on the console's workers page.
func TestRunServesTheConsole(t *testing.T) {
	st := pgtest.Open(t, nil)
	base, stop := startInProcess(t, "run", "-queues", "noop", "-metrics-addr", "", "-admin-addr", "127.0.0.1:0",
		"-database-url", pgtest.URL(t), "-schema", st.Schema())
	defer stop()
	var alive bool
	for deadline := time.Now().Add(10 * time.Second); !alive && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		_, body := get(t, base+"api/workers")
		alive = strings.Contains(body, `"state": "alive"`)
	}
	if !alive {
		t.Error("the console never showed the running worker alive")
	}
	if code := stop(); code != exitOK {
		t.Errorf("exit %d after cancellation, want 0", code)
	}
}

func TestConsoleListensOnLoopbackByDefault(t *testing.T) {
	_, stdout, _ := runCLI(t, nil, "console", "-help")
	if !strings.Contains(stdout, `"127.0.0.1:8080"`) {
		t.Errorf("console -help does not show a loopback default address:\n%s", stdout)
	}
}

// TestConsoleDoorFlags: a console on every address warns that it serves
// plain HTTP, answers to the names of -allowed-hosts and to none other,
// and a token shorter than 16 bytes is refused without being repeated.
func TestConsoleDoorFlags(t *testing.T) {
	st := pgtest.Open(t, nil)
	base, out, stop := startInProcessLog(t, "console", "-addr", "0.0.0.0:0", "-allowed-hosts", "ops.example.com, console.example.com",
		"-session-idle", "5m", "-admin-token", "0123456789abcdef", "-database-url", pgtest.URL(t), "-schema", st.Schema())
	defer stop()
	if !strings.Contains(out.String(), "reachable beyond this machine over plain HTTP") {
		t.Errorf("no warning about plain HTTP beyond loopback:\n%s", out)
	}
	for host, want := range map[string]int{"console.example.com": http.StatusOK, "ops.example.com:8080": http.StatusOK, "evil.example": http.StatusMisdirectedRequest} {
		req, _ := http.NewRequest("GET", base+"api/", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET /api/ for host %s: %s, want %d", host, resp.Status, want)
		}
	}
	if code := stop(); code != exitOK {
		t.Errorf("exit %d after cancellation, want 0", code)
	}
	if strings.Contains(out.String(), "0123456789abcdef") {
		t.Errorf("the output shows the admin token:\n%s", out)
	}

	base, out, stop = startInProcessLog(t, "console", "-addr", "127.0.0.1:0", "-database-url", pgtest.URL(t), "-schema", st.Schema())
	stop()
	if strings.Contains(out.String(), "plain HTTP") || base == "" {
		t.Errorf("a console on loopback warns:\n%s", out)
	}

	code, _, stderr := runCLI(t, nil, "console", "-admin-token", "hunter2", "-database-url", pgtest.URL(t), "-schema", st.Schema())
	if code == exitOK || !strings.Contains(stderr, "at least 16") || strings.Contains(stderr, "hunter2") {
		t.Errorf("a 7-byte admin token: exit %d\n%s\nwant a refusal naming 16, not the token", code, stderr)
	}
}
