package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

func TestOpsServer(t *testing.T) {
	mp, reg, err := newMetrics()
	if err != nil {
		t.Fatal(err)
	}
	defer mp.Shutdown(context.Background())
	counter, err := mp.Meter("test").Int64Counter("job.worker.wakeups")
	if err != nil {
		t.Fatal(err)
	}
	counter.Add(context.Background(), 3)

	var notReady atomic.Bool
	notReady.Store(true)
	ready := func(context.Context) error {
		if notReady.Load() {
			return errors.New("database unreachable")
		}
		return nil
	}
	srv, err := startOpsServer("127.0.0.1:0", reg, ready, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.shutdown(context.Background())
	base := "http://" + srv.addr()

	if code, body := get(t, base+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz = %d %q, want 200 ok", code, body)
	}
	if code, body := get(t, base+"/readyz"); code != 503 || !strings.Contains(body, "database unreachable") {
		t.Errorf("/readyz while not ready = %d %q, want 503 with the reason", code, body)
	}
	notReady.Store(false)
	if code, _ := get(t, base+"/readyz"); code != 200 {
		t.Errorf("/readyz when ready = %d, want 200", code)
	}
	code, body := get(t, base+"/metrics")
	if code != 200 || !strings.Contains(body, "job_worker_wakeups_total") || !strings.Contains(body, "go_goroutines") {
		t.Errorf("/metrics = %d, lacks the OpenTelemetry counter or the Go collector:\n%s", code, body)
	}
}

func TestOpsServerPortInUse(t *testing.T) {
	_, reg, err := newMetrics()
	if err != nil {
		t.Fatal(err)
	}
	first, err := startOpsServer("127.0.0.1:0", reg, func(context.Context) error { return nil }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer first.shutdown(context.Background())
	_, err = startOpsServer(first.addr(), reg, func(context.Context) error { return nil }, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "-metrics-addr") {
		t.Fatalf("second server on %s = %v, want an error naming -metrics-addr", first.addr(), err)
	}
}
