// Package configtest lists, for each field of the worker's Config, a
// value other than its default, so that tests can check that a Config
// with that field alone set is honoured by whatever takes a Config. The
// list is checked against the struct by reflection: a field added to
// Config without a value here fails those tests instead of going
// untested.
package configtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tickwork/tickwork/worker/engine"
)

// Case is one field of engine.Config set alone.
type Case struct {
	// Name is the field's path (Backoff.Base), with the value's note when
	// a field has several cases.
	Name string
	// Set is the zero Config with only the field set.
	Set engine.Config
	// Want is the config a core must run with: DefaultConfig with the
	// field's value.
	Want engine.Config
}

// value is a non-default setting of one field and what a core runs with.
type value struct {
	note      string
	set, want any // want nil: the same as set
}

// values holds at least one case per leaf field of engine.Config, keyed
// by its path. Each value keeps the fields that depend on it
// (LeaderInterval, DeadWorkerThreshold) at their defaults.
var values = map[string][]value{
	"Queues":              {{set: []string{"r"}}},
	"MaxConcurrent":       {{set: 3}},
	"MaxFetch":            {{set: 2}},
	"MaxRetries":          {{set: 2}, {note: "none", set: engine.NoRetries, want: 0}},
	"MaxSnoozes":          {{set: 7}, {note: "none", set: engine.NoSnoozes, want: 0}},
	"PollInterval":        {{set: 3 * time.Second}},
	"PollJitter":          {{set: 0.3}, {note: "none", set: engine.NoJitter, want: 0.0}},
	"HeartbeatInterval":   {{set: 10 * time.Second}},
	"LeaseTTL":            {{set: 8 * time.Second}},
	"LeaderInterval":      {{set: 200 * time.Millisecond}},
	"DeadWorkerThreshold": {{set: 5 * time.Minute}},
	"JobRetention":        {{set: 48 * time.Hour}},
	"WorkerRetention":     {{set: 24 * time.Hour}},
	"CleanupInterval":     {{set: 5 * time.Minute}},
	"CleanupBatch":        {{set: 500}},
	"CallTimeout":         {{set: 7 * time.Second}},
	"DrainTimeout":        {{set: 5 * time.Second}, {note: "none", set: engine.NoDrain, want: time.Duration(0)}},
	"VacuumDeadRows":      {{set: int64(10000)}},
	"VacuumInterval":      {{set: 5 * time.Minute}},
	"VacuumTimeout":       {{set: 20 * time.Minute}},
	"Backoff.Base":        {{set: time.Second}},
	"Backoff.Factor":      {{set: 1.5}},
	"Backoff.Max":         {{set: time.Hour}},
	"Backoff.Jitter":      {{set: 0.2}},
	"Policies":            {{set: map[string]engine.RetryPolicy{"q": {MaxAttempts: 3}}}},
	"DeadLetters":         {{set: map[string]string{"q": "q.dead"}}},
	"Schedules":           {{set: []engine.ScheduleSpec{{Name: "s", Cron: "0 * * * * *", Queue: "q", Payload: json.RawMessage(`{}`)}}}},
}

// Cases returns the cases of every leaf field of engine.Config, or an
// error naming each field that has no case, or no longer exists, or
// whose value is its default.
func Cases() ([]Case, error) { return casesOf(values) }

func casesOf(values map[string][]value) ([]Case, error) {
	var cases []Case
	var errs []error
	seen := map[string]bool{}
	for _, f := range Leaves() {
		seen[f.Path] = true
		vs := values[f.Path]
		if len(vs) == 0 {
			errs = append(errs, fmt.Errorf("configtest: Config.%s has no value: give it one other than its default", f.Path))
		}
		for _, v := range vs {
			c, err := newCase(f, v)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			cases = append(cases, c)
		}
	}
	for path := range values {
		if !seen[path] {
			errs = append(errs, fmt.Errorf("configtest: a value for Config.%s, which is not a field", path))
		}
	}
	return cases, errors.Join(errs...)
}

func newCase(f Leaf, v value) (Case, error) {
	c := Case{Name: f.Path, Want: engine.DefaultConfig()}
	if v.note != "" {
		c.Name += "/" + v.note
	}
	want := v.want
	if want == nil {
		want = v.set
	}
	def := f.Get(c.Want)
	if err := f.set(&c.Set, v.set); err != nil {
		return c, err
	}
	if err := f.set(&c.Want, want); err != nil {
		return c, err
	}
	if Equal(def, f.Get(c.Want)) {
		return c, fmt.Errorf("configtest: Config.%s: the value %v is the default", c.Name, want)
	}
	return c, nil
}

// WantWith is Want for a worker with handlers of the queues handled,
// which it takes when the config names none.
func (c Case) WantWith(handled ...string) engine.Config {
	want := c.Want
	if len(want.Queues) == 0 {
		want.Queues = handled
	}
	return want
}

// Run runs check, as a subtest named after the field, for each case; it
// fails t when a field has no case.
func Run(t *testing.T, check func(t *testing.T, c Case)) {
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { check(t, c) })
	}
}
