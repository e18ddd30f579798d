package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A cron expression that matches no time within the horizon never fires:
// Validate refuses it, naming the schedule and the expression.
func TestValidateRefusesScheduleThatNeverFires(t *testing.T) {
	for _, expr := range []string{"0 0 0 30 2 *", "0 0 0 31 4 *", "0 0 0 31 2,4,6,9,11 *", "* * * 30-31 2 *"} {
		cfg := scheduleConfig(expr)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), `schedule "every10s"`) || !strings.Contains(err.Error(), expr) ||
			!strings.Contains(err.Error(), "never fires") {
			t.Errorf("Validate of schedule %q = %v, want an error naming the schedule and saying it never fires", expr, err)
		}
	}
	for _, expr := range []string{"0 0 0 29 2 *", "0 0 0 31 * *", "0 0 0 30 2 MON", "*/10 * * * * *"} {
		if err := scheduleConfig(expr).Validate(); err != nil {
			t.Errorf("Validate of schedule %q, which fires: %v", expr, err)
		}
	}
}

// A schedule that reaches the leader with no next cron time (29 February
// alone, from March 2096: 2100 is no leap year) enqueues nothing, and the
// leader says so once, not at every pass. The cron library answers such a
// time with the zero time, which a store reads as due long ago: the runs
// used to come one a pass, forever.
func TestScheduleWithoutNextTimeEnqueuesNothing(t *testing.T) {
	e := newEnv(t)
	e.now = time.Date(2097, 1, 1, 0, 0, 0, 0, time.UTC)
	c, rec := e.core(scheduleConfig("0 0 0 29 2 *"), 1)
	for range 30 {
		for _, j := range e.tick(c) {
			c.finished(Result{JobID: j.ID, Decision: Succeed})
		}
		e.advance(time.Second)
	}
	if jobs := e.jobs(""); len(jobs) != 0 || rec.count(EventScheduleFired) != 0 {
		t.Fatalf("%d jobs enqueued (%d fired) for a schedule with no next time, want none", len(jobs), rec.count(EventScheduleFired))
	}
	said := rec.of(EventScheduleNoNextTime)
	if len(said) != 1 || said[0].Schedule != "every10s" || !strings.Contains(said[0].Reason, "0 0 0 29 2 *") {
		t.Fatalf("events %v, want one schedule-no-next-time naming the schedule and its expression", said)
	}
}

func TestParseCronRemembersBothAnswers(t *testing.T) {
	for _, expr := range []string{"0 0 0 30 2 *", "not cron", "*/5 * * * * *"} {
		s1, err1 := parseCron(expr)
		s2, err2 := parseCron(expr)
		if fmt.Sprint(err1) != fmt.Sprint(err2) || (err1 == nil) != (s1 != nil) || s1 != s2 {
			t.Errorf("parseCron(%q) twice: (%v, %v) then (%v, %v)", expr, s1, err1, s2, err2)
		}
	}
	for i := range maxParsedCrons + 10 {
		if _, err := parseCron(fmt.Sprintf("%d * * * * *", i%60) + strings.Repeat(" ", i/60)); err != nil {
			t.Fatal(err)
		}
	}
	parsedCrons.Lock()
	n := len(parsedCrons.m)
	parsedCrons.Unlock()
	if n > maxParsedCrons {
		t.Errorf("parseCron remembers %d expressions, more than its bound %d", n, maxParsedCrons)
	}
}
