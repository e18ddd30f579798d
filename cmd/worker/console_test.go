package main

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestConsoleCommand serves the console on a free port, reads a page and
// its JSON, sees an action refused (no token: read-only), and stops on
// cancellation with status 0.
func TestConsoleCommand(t *testing.T) {
	st := pgtest.Open(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr lockedBuffer
	c := &cli{stdout: &stderr, stderr: &stderr, env: fakeEnv(nil), stopSignals: func() {}}
	done := make(chan int, 1)
	go func() {
		done <- c.main(ctx, []string{"console", "-addr", "127.0.0.1:0", "-database-url", pgtest.URL(t), "-schema", st.Schema()})
	}()
	listening := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/)`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		cancel()
		t.Fatalf("the console did not report its address; exit %d, output:\n%s", <-done, stderr.String())
	}
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
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("exit %d after cancellation, want 0; output:\n%s", code, stderr.String())
	}
}

func TestConsoleListensOnLoopbackByDefault(t *testing.T) {
	_, _, stderr := runCLI(t, nil, "console", "-help")
	if !strings.Contains(stderr, `"127.0.0.1:8080"`) {
		t.Errorf("console -help does not show a loopback default address:\n%s", stderr)
	}
}
