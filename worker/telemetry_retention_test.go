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
	client := NewClient(st, clockrng.NewRand(2))
	for range 3 {
		_, err := Enqueue(context.Background(), client, email{To: "x"})
		must(t, err)
	}
	reader := sdkmetric.NewManualReader()
	cfg := runnerConfig()
	cfg.JobRetention, cfg.CleanupInterval, cfg.CleanupBatch = time.Millisecond, 10*time.Millisecond, 2
	r := startWorkerWith(t, st, Options{Config: cfg, Rand: clockrng.NewRand(1), Logger: slog.New(slog.DiscardHandler),
		MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))}, handleEmail(t))
	waitFor(t, "retention to delete the three completed jobs", func() bool {
		return len(listJobs(t, st, store.JobFilter{})) == 0
	})
	must(t, r.stop())

	var deleted int64
	if sum, ok := collectMetrics(t, reader)["job.retention.deleted"].(metricdata.Sum[int64]); ok {
		for _, dp := range sum.DataPoints {
			if v, _ := dp.Attributes.Value(attribute.Key("table")); v.AsString() == "jobs" {
				deleted += dp.Value
			}
		}
	}
	if deleted != 3 {
		t.Fatalf("job.retention.deleted{table=jobs} = %d, want 3", deleted)
	}
}
