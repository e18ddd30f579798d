package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tickwork/tickwork/worker"
)

// scheduleFlag collects the -schedule flags, each NAME|CRON|QUEUE|PAYLOAD:
// a recurring job whose cron expression has six fields, seconds
// first, read in UTC; NAME|CRON|QUEUE|unique=KEY|PAYLOAD gives its runs the
// unique key KEY (no JSON document begins "unique="), so that a cron time
// is skipped while another job holds it. The cron expression and the key
// are checked with the rest of the configuration, so that their errors
// name the schedule.
type scheduleFlag struct{ specs *[]worker.ScheduleSpec }

// uniquePrefix begins the optional unique-key field of a -schedule.
const uniquePrefix = "unique="

func (s scheduleFlag) String() string {
	if s.specs == nil {
		return ""
	}
	var out []string
	for _, sp := range *s.specs {
		fields := []string{sp.Name, sp.Cron, sp.Queue, string(sp.Payload)}
		if sp.UniqueKey != "" {
			fields = slices.Insert(fields, 3, uniquePrefix+sp.UniqueKey)
		}
		out = append(out, strings.Join(fields, "|"))
	}
	return strings.Join(out, ", ")
}

func (s scheduleFlag) Set(v string) error {
	parts := strings.SplitN(v, "|", 4)
	if len(parts) != 4 {
		return fmt.Errorf("%s: want NAME|CRON|QUEUE|PAYLOAD or NAME|CRON|QUEUE|unique=KEY|PAYLOAD, e.g. 'nightly|0 0 3 * * *|webhook|{\"url\": \"https://example.com/\"}'", shown(v))
	}
	name, cron, queue := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), strings.TrimSpace(parts[2])
	rest, key := strings.TrimSpace(parts[3]), ""
	if k, after, ok := strings.Cut(rest, "|"); ok && strings.HasPrefix(k, uniquePrefix) {
		key, rest = strings.TrimSpace(strings.TrimPrefix(k, uniquePrefix)), after
		if key == "" {
			return fmt.Errorf("schedule %s: %s names no key", shown(name), uniquePrefix)
		}
	}
	payload := json.RawMessage(strings.TrimSpace(rest))
	if !json.Valid(payload) {
		return fmt.Errorf("schedule %s: payload %s is not valid JSON", shown(name), shown(string(payload)))
	}
	if check, ok := builtinQueues[queue]; ok {
		if err := check(payload); err != nil {
			return fmt.Errorf("schedule %s: payload for queue %s: %v", shown(name), shown(queue), err)
		}
	}
	*s.specs = append(*s.specs, worker.ScheduleSpec{Name: name, Cron: cron, Queue: queue, Payload: payload, UniqueKey: key})
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
