package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tickwork/tickwork/worker"
)

// scheduleFlag collects the -schedule flags, each NAME|CRON|QUEUE|PAYLOAD:
// a recurring job (SPEC 6) whose cron expression has six fields, seconds
// first, read in UTC. The cron expression is checked with the rest of the
// configuration, so that its error names the schedule.
type scheduleFlag struct{ specs *[]worker.ScheduleSpec }

func (s scheduleFlag) String() string {
	if s.specs == nil {
		return ""
	}
	var out []string
	for _, sp := range *s.specs {
		out = append(out, strings.Join([]string{sp.Name, sp.Cron, sp.Queue, string(sp.Payload)}, "|"))
	}
	return strings.Join(out, ", ")
}

func (s scheduleFlag) Set(v string) error {
	parts := strings.SplitN(v, "|", 4)
	if len(parts) != 4 {
		return fmt.Errorf("%s: want NAME|CRON|QUEUE|PAYLOAD, e.g. 'nightly|0 0 3 * * *|webhook|{\"url\": \"https://example.com/\"}'", shown(v))
	}
	name, cron, queue := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), strings.TrimSpace(parts[2])
	payload := json.RawMessage(strings.TrimSpace(parts[3]))
	if !json.Valid(payload) {
		return fmt.Errorf("schedule %s: payload %s is not valid JSON", shown(name), shown(string(payload)))
	}
	if check, ok := builtinQueues[queue]; ok {
		if err := check(payload); err != nil {
			return fmt.Errorf("schedule %s: payload for queue %s: %v", shown(name), shown(queue), err)
		}
	}
	*s.specs = append(*s.specs, worker.ScheduleSpec{Name: name, Cron: cron, Queue: queue, Payload: payload})
	return nil
}

// envItems reads TICKWORK_SCHEDULE: one schedule per line (a payload is
// then written on one line), blank lines ignored.
func (s scheduleFlag) envItems(value string) []string {
	var items []string
	for line := range strings.Lines(value) {
		if line = strings.TrimSpace(line); line != "" {
			items = append(items, line)
		}
	}
	return items
}

func (s scheduleFlag) envSyntax() string { return "one schedule per line" }
