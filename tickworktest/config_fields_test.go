package tickworktest

import (
	"context"
	"testing"
	"time"

	"github.com/tickwork/tickwork/internal/configtest"
	"github.com/tickwork/tickwork/internal/workerengine"
	"github.com/tickwork/tickwork/worker"
)

// TestEachConfigFieldAlone sets each field of the worker's Config alone
// and checks that the kit's worker keeps it and that the cores the kit
// runs jobs with do too, apart from what a kit's core sets by design
// (one job at a time, a leader pass each tick, no schedules).
func TestEachConfigFieldAlone(t *testing.T) {
	configtest.Run(t, func(t *testing.T, c configtest.Case) {
		k := New(t, Options{Worker: worker.Options{Config: c.Set}})
		for _, q := range []string{"q", "r"} {
			if err := worker.Handle(k.Worker(), q, func(context.Context, worker.Job[struct{}]) error { return nil }); err != nil {
				t.Fatal(err)
			}
		}
		want := c.WantWith("q", "r")
		if d := configtest.Diff(workerengine.Of(k.Worker()).CoreConfig(), want); d != "" {
			t.Errorf("the kit's worker, Config.%s alone:%s", c.Name, d)
		}
		want.Queues, want.Schedules = []string{"q"}, nil
		want.MaxConcurrent, want.MaxFetch, want.LeaderInterval = 1, 1, time.Nanosecond
		if d := configtest.Diff(k.coreConfig([]string{"q"}), want); d != "" {
			t.Errorf("the kit's core, Config.%s alone:%s", c.Name, d)
		}
	})
}
