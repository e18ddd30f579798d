package main

import (
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/worker"
)

// -job-retention, -worker-retention, -cleanup-interval and -cleanup-batch
// (or their TICKWORK_ variables) reach the worker's core; without them it
// runs with the library's defaults; out-of-range values are refused with
// the flag's name.
func TestRetentionFlags(t *testing.T) {
	def := worker.DefaultConfig()
	cfg, err := parseRun(t, nil, nil).config()
	if err != nil || cfg.JobRetention != def.JobRetention || cfg.WorkerRetention != def.WorkerRetention ||
		cfg.CleanupInterval != def.CleanupInterval || cfg.CleanupBatch != def.CleanupBatch {
		t.Fatalf("without flags: %v %v %v %d, %v; want the defaults %v %v %v %d", cfg.JobRetention, cfg.WorkerRetention,
			cfg.CleanupInterval, cfg.CleanupBatch, err, def.JobRetention, def.WorkerRetention, def.CleanupInterval, def.CleanupBatch)
	}
	f := parseRun(t, []string{"-job-retention", "48h", "-cleanup-batch", "250"},
		map[string]string{"TICKWORK_WORKER_RETENTION": "36h", "TICKWORK_CLEANUP_INTERVAL": "5m"})
	if cfg, err = f.config(); err != nil {
		t.Fatal(err)
	}
	got := coreConfig(t, cfg)
	if got.JobRetention != 48*time.Hour || got.WorkerRetention != 36*time.Hour || got.CleanupInterval != 5*time.Minute || got.CleanupBatch != 250 {
		t.Fatalf("the worker runs with job retention %v, worker retention %v, cleanup every %v in batches of %d; want 48h, 36h, 5m, 250",
			got.JobRetention, got.WorkerRetention, got.CleanupInterval, got.CleanupBatch)
	}
	for _, args := range [][]string{{"-job-retention", "10ms"}, {"-worker-retention", "0s"}, {"-cleanup-interval", "500ms"}, {"-cleanup-batch", "0"}} {
		var f runFlags
		fs := newFlagSet("worker run", runSynopsis, &strings.Builder{})
		f.register(fs)
		if err := fs.Parse(args); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "-")) {
			t.Errorf("%s %s: %v, want a refusal naming the flag", args[0], args[1], err)
		}
	}
}
