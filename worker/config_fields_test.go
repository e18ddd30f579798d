package worker

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/configtest"
	"github.com/tickwork/tickwork/store/mem"
)

// TestEachConfigFieldAlone sets each field of Config alone and checks
// that the configuration Run hands its core keeps it, every other field
// taking its default. A field added to Config without a case in
// internal/configtest fails it.
func TestEachConfigFieldAlone(t *testing.T) {
	configtest.Run(t, func(t *testing.T, c configtest.Case) {
		w, err := New(mem.New(func() time.Time { return epoch }), Options{Config: c.Set, Rand: clockrng.NewRand(1), Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatalf("New with Config.%s alone: %v", c.Name, err)
		}
		for _, q := range []string{"q", "r"} {
			if err := Handle(w, q, func(context.Context, Job[struct{}]) error { return nil }); err != nil {
				t.Fatal(err)
			}
		}
		got, _, err := w.start() // what Run hands its core
		if err != nil {
			t.Fatalf("start: %v", err)
		}
		if d := configtest.Diff(got, c.WantWith("q", "r")); d != "" {
			t.Errorf("Config.%s alone:%s", c.Name, d)
		}
	})
}
