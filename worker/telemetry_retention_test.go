package worker

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
)

// job.retention.deleted counts, by table, the rows the leader's retention
// deleted: here three completed jobs past a millisecond's retention, in
// batches of at most two.
func TestRetentionMetric(t *testing.T) {
	st := mem.New(time.Now)
	reader := sdkmetric.NewManualReader()
	cfg := runnerConfig()
	cfg.JobRetention, cfg.CleanupInterval, cfg.CleanupBatch = time.Millisecond, 10*time.Millisecond, 2
	w, err := New(st, Options{Config: cfg, Rand: clockrng.NewRand(1), Logger: slog.New(slog.DiscardHandler),
		MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	must(t, err)
	must(t, Handle(w, "email", func(context.Context, Job[email]) error { return nil }))
	client := NewClient(st, clockrng.NewRand(2))
	for range 3 {
		_, err = Enqueue(context.Background(), client, email{To: "x"})
		must(t, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()
	waitFor(t, "retention to delete the three completed jobs", func() bool {
		return len(listJobs(t, st, store.JobFilter{})) == 0
	})
	cancel()
	must(t, <-done)

	var rm metricdata.ResourceMetrics
	must(t, reader.Collect(context.Background(), &rm))
	var deleted int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "job.retention.deleted" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				if v, _ := dp.Attributes.Value(attribute.Key("table")); v.AsString() == "jobs" {
					deleted += dp.Value
				}
			}
		}
	}
	if deleted != 3 {
		t.Fatalf("job.retention.deleted{table=jobs} = %d, want 3", deleted)
	}
}
