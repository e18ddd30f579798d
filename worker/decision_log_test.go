package worker

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker/engine"
)

// A job that ends for good on its last attempt is logged with the
// decision the core took (fail), not the retry its handler asked for.
func TestLogsTheDecisionTaken(t *testing.T) {
	var logs strings.Builder
	w, err := New(mem.New(func() time.Time { return epoch }), Options{Config: Config{MaxRetries: NoRetries}, Rand: clockrng.NewRand(1),
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := Handle(w, "q", func(context.Context, Job[struct{}]) error { return errors.New("boom") }); err != nil {
		t.Fatal(err)
	}
	job := store.Job{ID: clockrng.NewULID(epoch, clockrng.NewRand(2)), Queue: "q", Payload: []byte(`{}`), Status: store.Running}
	if r := w.executeInline(context.Background(), job); r.Decision != Retry {
		t.Fatalf("the handler's error asks %v, want retry", r.Decision)
	}
	w.observe(engine.Event{Kind: engine.EventRetryAbandoned, Job: job, Decision: Retry, Reason: "attempt 0 reached MaxRetries 0"})
	out := logs.String()
	if strings.Contains(out, "decision=retry") || !strings.Contains(out, "level=WARN msg=retry-abandoned") || !strings.Contains(out, "decision=fail") {
		t.Errorf("logs of a job's last attempt:\n%s\nwant decision=fail at WARN and no decision=retry", out)
	}
}
