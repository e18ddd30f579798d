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
	listening := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/)`)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], stop
		}
	}
	t.Fatalf("the console did not report its address; exit %d", stop())
	return "", nil
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
