package props

import (
	"strings"
	"testing"
	"time"
)

// outlastedLease: w1's duty transaction begins at began (its store time)
// and commits after w2 took w1's expired lease over, as interleaved
// transactions do; the history is in commit order, so time goes back.
func outlastedLease(b *builder, began time.Duration) {
	setup(b) // w1's lease from epoch, for the TTL (5s)
	b.after(6 * time.Second)
	b.reacquire(w2)
	b.now = epoch.Add(began)
	b.duties(w1)
}

// TestCommitOrderAcceptsDutiesBegunUnderTheLease: in CommitOrder the duty
// transaction that began under w1's lease may commit after w2's election;
// serially the same history is malformed (time goes back).
func TestCommitOrderAcceptsDutiesBegunUnderTheLease(t *testing.T) {
	b := newBuilder()
	b.params.CommitOrder = true
	outlastedLease(b, 4*time.Second)
	for _, v := range mustCheck(t, b.history()) {
		t.Errorf("unexpected violation: %v", v)
	}
	b.params.CommitOrder = false
	vs := mustCheck(t, b.history())
	if len(vs) == 0 || vs[0].Property != WellFormed || !strings.Contains(vs[0].Message, "goes back") {
		t.Fatalf("without CommitOrder: %v, want time going back", vs)
	}
}

// TestCommitOrderRejectsDutiesBegunAfterTheLease: a duty transaction that
// began once w1's term had ended breaks property 1 in CommitOrder too.
func TestCommitOrderRejectsDutiesBegunAfterTheLease(t *testing.T) {
	b := newBuilder()
	b.params.CommitOrder = true
	outlastedLease(b, 5500*time.Millisecond)
	vs := mustCheck(t, b.history())
	if len(vs) == 0 || vs[0].Property != LeaderUniqueness || !strings.Contains(vs[0].Message, "without holding an unexpired lease") {
		t.Fatalf("got %v, want duties without the lease", vs)
	}
}

// TestSkipForAKeyItsCommitLetGo: a duty pass skips a cron time because a
// row holds the schedule's key, then rescues that row as lost, in one
// commit: the skip was right when made.
func TestSkipForAKeyItsCommitLetGo(t *testing.T) {
	b := newBuilder()
	keyedSchedule(b) // job 50 holds the key
	b.duties(w1, b.setSchedule("tick", epoch.Add(time.Minute), none), b.setJob(job(50), func(r *JobRow) {
		r.Status, r.FailedAt, r.FailedReason = Lost, b.now, "its worker was declared dead"
	}))
	for _, v := range mustCheck(t, b.history()) {
		if v.Property == ScheduleRuns {
			t.Errorf("unexpected violation: %v", v)
		}
	}
}

// TestCommitOrderSkipAfterItsHolderLetGo: in CommitOrder a duty
// transaction that skips a cron time for a key may commit after the
// key's holder let go: the skip stands if the release's transaction began
// no earlier than the duty's (the key was held as the duty began), and
// breaks property 7 if it began before.
func TestCommitOrderSkipAfterItsHolderLetGo(t *testing.T) {
	for _, c := range []struct {
		began  time.Duration // the duty transaction's store time; the release's is 30 s
		broken bool
	}{{10 * time.Second, false}, {30 * time.Second, false}, {40 * time.Second, true}} {
		b := newBuilder()
		b.params.CommitOrder = true
		keyedSchedule(b) // job 50 holds the key
		b.now = epoch.Add(30 * time.Second)
		b.commit(none, b.setJob(job(50), func(r *JobRow) { r.Status, r.CancelledAt = Cancelled, b.now }))
		b.now = epoch.Add(c.began)
		b.duties(w1, b.setSchedule("tick", epoch.Add(time.Minute), none))
		broken := false
		for _, v := range mustCheck(t, b.history()) {
			if v.Property == ScheduleRuns {
				broken = broken || strings.Contains(v.Message, "while no row holds its unique key")
			}
		}
		if broken != c.broken {
			t.Errorf("duty begun at %v, release at 30s: property 7 broken %t, want %t", c.began, broken, c.broken)
		}
	}
}
