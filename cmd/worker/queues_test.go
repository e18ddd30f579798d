package main

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestQueuesCommands drives enqueue -priority and the queues commands
// against PostgreSQL: what they print, what they store, and the clear
// refusal of bad input.
func TestQueuesCommands(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	// run returns standard output when the command succeeds and standard
	// error when it is refused.
	run := func(want int, args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, nil, args...)
		if code != want {
			t.Fatalf("worker %s: exit %d, want %d; stderr:\n%s", strings.Join(args, " "), code, want, stderr)
		}
		if want != exitOK {
			return stderr
		}
		return stdout
	}
	out := run(exitOK, cmdArgs([]string{"enqueue"}, db, "-queue", "mail", "-payload", "{}", "-priority", "4")...)
	id := strings.TrimSpace(out)
	if j := getJob(t, st, ulid.MustParseStrict(id)); j.Priority != 4 {
		t.Errorf("enqueue -priority 4 stored priority %d", j.Priority)
	}
	if out := run(exitOK, cmdArgs([]string{"jobs", "show"}, db, id)...); !regexp.MustCompile(`(?m)^priority:\s+4$`).MatchString(out) {
		t.Errorf("jobs show does not print the priority:\n%s", out)
	}
	if out := run(exitUsage, cmdArgs([]string{"enqueue"}, db, "-queue", "mail", "-payload", "{}", "-priority", "10")...); !strings.Contains(out, "-priority") {
		t.Errorf("enqueue -priority 10 did not name the flag:\n%s", out)
	}
	run(exitOK, cmdArgs([]string{"queues", "pause"}, db, "mail")...)
	run(exitOK, cmdArgs([]string{"queues", "set-limit"}, db, "mail", "3")...)
	if out := run(exitOK, cmdArgs([]string{"queues", "set-rate"}, db, "mail", "100/1m")...); !strings.Contains(out, "100/1m starts") {
		t.Errorf("queues set-rate mail 100/1m printed %q", out)
	}
	out = run(exitOK, cmdArgs([]string{"queues", "list"}, db)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "RATE") || !strings.HasPrefix(lines[1], "mail") ||
		!strings.Contains(lines[1], "paused since") || !strings.Contains(lines[1], " 3 ") || !strings.Contains(lines[1], " 100/1m ") {
		t.Fatalf("queues list after pause, set-limit 3 and set-rate 100/1m:\n%s", out)
	}
	var listed []queueJSON
	out = run(exitOK, cmdArgs([]string{"queues", "list"}, db, "-format", "json")...)
	if err := json.Unmarshal([]byte(out), &listed); err != nil || len(listed) != 1 || !listed[0].Paused || listed[0].Limit != 3 ||
		listed[0].Rate != 100 || listed[0].RatePeriodSeconds != 60 || listed[0].Counts[store.Available] != 1 {
		t.Errorf("queues list -format json:\n%s", out)
	}
	run(exitOK, cmdArgs([]string{"queues", "resume"}, db, "mail")...)
	if out := run(exitOK, cmdArgs([]string{"queues", "pause-all"}, db)...); out != "every queue paused\n" {
		t.Errorf("queues pause-all printed %q", out)
	}
	out = run(exitOK, cmdArgs([]string{"queues", "list"}, db)...)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], "ALL QUEUES PAUSED since ") ||
		!strings.Contains(lines[2], "paused (all)") {
		t.Errorf("queues list after pause-all:\n%s", out)
	}
	out = run(exitOK, cmdArgs([]string{"queues", "list"}, db, "-format", "json")...)
	if err := json.Unmarshal([]byte(out), &listed); err != nil || len(listed) != 1 || listed[0].Paused || !listed[0].PausedAll {
		t.Errorf("queues list -format json after pause-all:\n%s", out)
	}
	run(exitOK, cmdArgs([]string{"queues", "resume-all"}, db)...)
	if out := run(exitOK, cmdArgs([]string{"queues", "list"}, db)...); strings.Contains(out, "ALL QUEUES PAUSED") || strings.Contains(out, "paused") {
		t.Errorf("queues list after resume-all:\n%s", out)
	}
	run(exitOK, cmdArgs([]string{"queues", "set-limit"}, db, "mail", "none")...)
	run(exitOK, cmdArgs([]string{"queues", "set-rate"}, db, "mail", "none")...)
	var rows []store.QueueStats
	err := st.InTx(context.Background(), func(tx store.Tx) (err error) { rows, err = tx.ListQueues(context.Background()); return err })
	if err != nil || len(rows) != 1 || rows[0].Controlled() {
		t.Fatalf("after resume and set-limit none: %+v, %v", rows, err)
	}
	for _, bad := range [][]string{{"set-limit", "mail", "-1"}, {"set-limit", "mail"}, {"set-rate", "mail", "5"}, {"set-rate", "mail", "5/0s"}, {"pause", ""}, {"pause-all", "mail"}, {"resume-all", "mail"}, {"frobnicate"}} {
		if out := run(exitUsage, cmdArgs([]string{"queues", bad[0]}, db, bad[1:]...)...); len(out) == 0 || len(out) > 2000 {
			t.Errorf("queues %q: message of %d bytes:\n%s", bad, len(out), out)
		}
	}
}

// TestParseRate: set-rate's argument, and a clear refusal naming it.
func TestParseRate(t *testing.T) {
	for in, want := range map[string]struct {
		n      int
		period time.Duration
	}{
		"100/1m": {100, time.Minute}, "5/s": {5, time.Second}, "1000/1h30m": {1000, 90 * time.Minute},
		"2/1.5s": {2, 1500 * time.Millisecond}, "none": {}, "0": {}, "100000/168h": {store.MaxQueueRate, store.MaxRatePeriod},
	} {
		n, period, err := parseRate(in)
		if err != nil || n != want.n || period != want.period {
			t.Errorf("parseRate(%q) = %d, %s, %v; want %d, %s", in, n, period, err, want.n, want.period)
		}
		if n > 0 {
			if back, p, err := parseRate(formatRate(n, period)); err != nil || back != n || p != period {
				t.Errorf("formatRate(%d, %s) = %q does not read back", n, period, formatRate(n, period))
			}
		}
	}
	for _, in := range []string{"", "5", "/1m", "x/1m", "0/1m", "-1/1m", "100001/1m", "5/", "5/0s", "5/1us", "5/169h", "5/fortnight"} {
		if _, _, err := parseRate(in); err == nil || !strings.Contains(err.Error(), strconv.Quote(in)) && !strings.Contains(err.Error(), in) {
			t.Errorf("parseRate(%q): error %v, want one naming the input", in, err)
		}
	}
}
