package props

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// liveRecord is what a live run would leave of a builder's history: the
// final rows, and a log of everything but the row commits (leader terms
// kept as lease-only commits without their Before).
func liveRecord(b *builder) (jobs []JobRow, workers []WorkerRow, log []Event) {
	for _, id := range sortedJobIDs(b.jobs) {
		jobs = append(jobs, b.jobs[id])
	}
	for _, id := range slices.SortedFunc(maps.Keys(b.workers), ulid.ULID.Compare) {
		workers = append(workers, b.workers[id])
	}
	for _, e := range b.events {
		if e.Kind != Commit {
			log = append(log, e)
			continue
		}
		if len(e.Leases) > 0 {
			var term []LeaseChange
			for _, l := range e.Leases {
				term = append(term, LeaseChange{After: l.After})
			}
			log = append(log, Event{Kind: Commit, Time: e.Time, Worker: e.Worker, Process: e.Process, Leases: term})
		}
	}
	return jobs, workers, log
}

func TestReconstructGoodHistories(t *testing.T) {
	for name, build := range map[string]func(*builder){
		"full": fullRun, "stalled": stalledRun, "exhausted": exhaustedRun, "released": releasedRun, "late start": lateStartRun,
		"schedule fired": scheduleFiredRun, "policy": policyRun,
	} {
		t.Run(name, func(t *testing.T) {
			b := newBuilder()
			build(b)
			jobs, workers, log := liveRecord(b)
			h := Reconstruct(b.params, jobs, workers, log)
			for _, v := range mustCheck(t, h) {
				t.Errorf("unexpected violation: %v", v)
			}
			commits := 0
			for _, e := range h.Events {
				commits += len(e.Jobs)
			}
			if commits < len(jobs) {
				t.Fatalf("%d job changes for %d rows", commits, len(jobs))
			}
		})
	}
}

func TestReconstructFindsViolations(t *testing.T) {
	for _, tc := range []struct {
		name  string
		want  Property
		build func(*builder)
	}{
		{"retry too soon", RetryBounds, func(b *builder) {
			failedOnce(b)
			b.commit(w1, b.fail(1, "again"), b.retry(1, 2, time.Second))
			b.after(time.Second)
			b.reacquire(w1)
			b.duties(w1, b.promote(2))
			b.run(2, w1, Succeed, 0)
		}},
		{"snooze consumes an attempt", Snoozes, func(b *builder) {
			setup(b)
			b.commit(none, b.enqueue(1))
			b.runOnce(1, w1)
			b.endSnooze(1, w1, time.Second)
			b.commit(w1, b.snooze(1, 2, time.Second), b.setJob(job(2), func(r *JobRow) { r.Attempt = 1 }))
		}},
		{"retry missing", RetryBounds, func(b *builder) {
			failedOnce(b)
			b.commit(w1, b.fail(1, "again"))
		}},
		{"two leaders", LeaderUniqueness, func(b *builder) {
			setup(b)
			b.after(time.Second)
			b.commit(w2, b.setLease(&LeaseRow{Holder: w2, ElectedAt: b.now, ExpiresAt: b.now.Add(5 * time.Second)}))
		}},
		{"over the cap", ConcurrencyCap, func(b *builder) {
			setup(b)
			b.commit(none, b.enqueue(1), b.enqueue(2), b.enqueue(3))
			b.commit(w1, b.reserve(1, w1), b.reserve(2, w1), b.reserve(3, w1))
			for n := 1; n <= 3; n++ {
				b.start(n, w1)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBuilder()
			tc.build(b)
			jobs, workers, log := liveRecord(b)
			vs := mustCheck(t, Reconstruct(b.params, jobs, workers, log))
			if len(vs) == 0 || vs[0].Property != tc.want {
				t.Fatalf("violations %v, want %v first", vs, tc.want)
			}
		})
	}
}

// scheduleFiredRun is a leader's duty that enqueues a schedule's run and
// logs it, as a live worker's -history-log does: the logged ScheduleFired
// shares the insert's store time and must come after it.
func scheduleFiredRun(b *builder) {
	setup(b)
	b.event(DutiesStarted, w1, nil)
	b.commit(w1, b.scheduleRun(100))
	b.event(ScheduleFired, w1, func(e *Event) {
		e.Job, e.Schedule, e.CronTime = job(100), "tick", b.jobs[job(100)].ScheduledAt
	})
	b.event(DutiesEnded, w1, nil)
}
