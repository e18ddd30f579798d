package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store/mem"
)

func TestDefaultConfigIsTheSpec(t *testing.T) {
	c := DefaultConfig()
	if c.MaxConcurrent != 10 || c.MaxFetch != 5 || c.MaxRetries != 10 || c.PollInterval != time.Second ||
		c.PollJitter != 0.1 || c.HeartbeatInterval != time.Minute || c.LeaseTTL != 5*time.Second ||
		c.DeadWorkerThreshold != 2*time.Minute || c.JobRetention != 30*24*time.Hour ||
		c.WorkerRetention != 7*24*time.Hour || c.DrainTimeout != 30*time.Second || c.VacuumTimeout != time.Hour ||
		c.Backoff != clockrng.DefaultBackoff() {
		t.Fatalf("DefaultConfig() = %+v, not the documented defaults", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("DefaultConfig does not validate: %v", err)
	}
}

// TestDefaultsKeepTheirRelations sets alone a field that another must
// stay within: the other's default follows, so the config still works.
func TestDefaultsKeepTheirRelations(t *testing.T) {
	c := Config{LeaseTTL: time.Second}.WithDefaults()
	if c.LeaderInterval != 250*time.Millisecond {
		t.Errorf("LeaseTTL 1s alone: LeaderInterval %v, want a quarter of it", c.LeaderInterval)
	}
	c = Config{HeartbeatInterval: 5 * time.Minute}.WithDefaults()
	if c.DeadWorkerThreshold != 10*time.Minute {
		t.Errorf("HeartbeatInterval 5m alone: DeadWorkerThreshold %v, want twice it", c.DeadWorkerThreshold)
	}
	for _, set := range []Config{{LeaseTTL: time.Second}, {HeartbeatInterval: 5 * time.Minute}} {
		if err := set.WithDefaults().Validate(); err != nil {
			t.Errorf("%+v filled in: %v", set, err)
		}
	}
}

func TestValidateNamesTheProblem(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"cap", func(c *Config) { c.MaxConcurrent = 0 }, "MaxConcurrent is 0"},
		{"fetch", func(c *Config) { c.MaxFetch = -1 }, "MaxFetch is -1"},
		{"retries", func(c *Config) { c.MaxRetries = -1 }, "MaxRetries is -1"},
		{"poll", func(c *Config) { c.PollInterval = 0 }, "PollInterval is 0s"},
		{"jitter", func(c *Config) { c.PollJitter = 1.5 }, "PollJitter is 1.5"},
		{"lease", func(c *Config) { c.LeaderInterval = 10 * time.Second }, "shorter than LeaseTTL"},
		{"dead", func(c *Config) { c.DeadWorkerThreshold = 30 * time.Second }, "longer than HeartbeatInterval"},
		{"backoff", func(c *Config) { c.Backoff.Base = 0 }, "backoff: base"},
		{"queue", func(c *Config) { c.Queues = []string{"a", ""} }, `queue name ""`},
		{"dup queue", func(c *Config) { c.Queues = []string{"a", "a"} }, `queue "a" is listed twice`},
		{"cron", func(c *Config) {
			c.Schedules = []ScheduleSpec{{Name: "nightly", Cron: "0 0 3 * *", Queue: "q", Payload: []byte(`{}`)}}
		}, `schedule "nightly": cron expression "0 0 3 * *"`},
		{"tz", func(c *Config) {
			c.Schedules = []ScheduleSpec{{Name: "tz", Cron: "TZ=Europe/Paris 0 0 3 * * *", Queue: "q", Payload: []byte(`{}`)}}
		}, "UTC"},
		{"payload", func(c *Config) {
			c.Schedules = []ScheduleSpec{{Name: "p", Cron: "0 * * * * *", Queue: "q", Payload: []byte(`{`)}}
		}, `schedule "p": payload`},
		{"dup schedule", func(c *Config) {
			s := ScheduleSpec{Name: "s", Cron: "0 * * * * *", Queue: "q", Payload: []byte(`{}`)}
			c.Schedules = []ScheduleSpec{s, s}
		}, `schedule "s" is listed twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			tc.change(&cfg)
			err := cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
			if _, err := NewCore(mem.New(func() time.Time { return epoch }), cfg, clockrng.NewRand(1), nil); err == nil {
				t.Fatal("NewCore accepted the bad config")
			}
		})
	}
}

func TestErrorBackoffDoublesToCap(t *testing.T) {
	cfg := Config{PollInterval: time.Second, HeartbeatInterval: time.Minute}
	want := []time.Duration{time.Second, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	for f, w := range want {
		if got := errorBackoff(cfg, f); got != w {
			t.Errorf("errorBackoff(1s, %d) = %v, want %v", f, got, w)
		}
	}
	// Neither a poll interval past the cap nor a short heartbeat interval
	// keeps a failing worker silent longer than its heartbeat allows.
	for _, c := range []struct{ poll, heartbeat, want time.Duration }{
		{time.Minute, 2 * time.Minute, 30 * time.Second},
		{time.Hour, time.Minute, 30 * time.Second},
		{time.Hour, 200 * time.Millisecond, 200 * time.Millisecond},
		{100 * time.Millisecond, 3 * time.Second, 3 * time.Second},
	} {
		cfg := Config{PollInterval: c.poll, HeartbeatInterval: c.heartbeat}
		if got := errorBackoff(cfg, 10); got != c.want {
			t.Errorf("errorBackoff(poll %v, heartbeat %v, 10) = %v, want %v", c.poll, c.heartbeat, got, c.want)
		}
	}
}
