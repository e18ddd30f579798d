package props

import (
	"strings"
	"testing"
	"time"
)

var passCompleteCases = []violationCase{
	{"pass left a schedule due", PassComplete, "left schedule tick due: its last cron time", func(b *builder) int {
		setup(b)
		b.duties(w1, b.scheduleRun(100))
		b.after(time.Minute).commit(w2, b.heartbeat(w2))
		b.reacquire(w1)
		b.duties(w1, b.promote(100)) // due, but its run has not ended
		b.commit(w1, b.reserve(100, w1))
		b.commit(w1, b.complete(100))
		b.after(time.Second)
		return endedPass(b, w1, 0, 0)
	}},
	{"pass left a due retry scheduled", PassComplete, "left job " + job(2).String() + " scheduled for", func(b *builder) int {
		oneRunning(b)
		b.commit(w1, b.fail(1, "boom"), b.retry(1, 2, 5*time.Second))
		b.after(5 * time.Second).reacquire(w1)
		return endedPass(b, w1, 0, 0)
	}},
	{"pass left a worker past the dead threshold live", PassComplete, "left worker " + w2.String() + " live", func(b *builder) int {
		setup(b)
		b.after(3 * time.Minute).reacquire(w1)
		return endedPass(b, w1, 0, 0)
	}},
	{"pass left a row running under a shut-down worker", PassComplete, "left job " + job(1).String() + " running under " + w2.String(), func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.commit(w2, b.reserve(1, w2))
		b.commit(w2, b.shutdownWorker(w2))
		return endedPass(b, w1, 0, 0)
	}},
}

// TestPassCompleteInCommitOrder: in a history in commit order, what a
// pass left is owed by the next pass, whose snapshot may be the first to
// see it; a pass that does it in between is clean.
func TestPassCompleteInCommitOrder(t *testing.T) {
	for _, promoted := range []bool{false, true} {
		b := newBuilder()
		b.params.CommitOrder = true
		oneRunning(b)
		b.commit(w1, b.fail(1, "boom"), b.retry(1, 2, 5*time.Second))
		b.after(5 * time.Second).reacquire(w1)
		b.duties(w1)
		if promoted {
			b.duties(w1, b.promote(2))
			b.duties(w1)
		} else {
			b.duties(w1)
		}
		var got []Violation
		for _, v := range mustCheck(t, b.history()) {
			if v.Property == PassComplete {
				got = append(got, v)
			}
		}
		switch {
		case promoted && len(got) > 0:
			t.Errorf("promoted by the second pass: %v", got)
		case !promoted && (len(got) != 1 || !strings.Contains(got[0].Message, "left job "+job(2).String())):
			t.Errorf("left by two passes: want one violation naming job 2, got %v", got)
		}
	}
}
