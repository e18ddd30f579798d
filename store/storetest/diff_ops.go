package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
	"pgregory.net/rapid"

	"github.com/tickwork/tickwork/store"
)

// opDrawers draws one operation of each kind with its inputs.
var opDrawers = map[string]func(rt *rapid.T, d *diff) op{
	"registerWorker":      drawRegister,
	"heartbeat":           drawWorkerOp("heartbeat", store.Tx.Heartbeat),
	"crashAndRescue":      drawCrashAndRescue,
	"shutdownWorker":      drawWorkerOp("shutdownWorker", store.Tx.ShutdownWorker),
	"shutdownDeadWorkers": drawShutdownDead,
	"deleteOldWorkers":    drawDeleteOldWorkers,
	"expireLease":         drawExpireLease,
	"tryAcquireLease":     drawAcquire,
	"releaseLease":        drawLeaseBool("releaseLease", store.Tx.ReleaseLease),
	"lockLeaderDuties":    drawLeaseBool("lockLeaderDuties", store.Tx.LockLeaderDuties),
	"insertJobs":          drawInsert,
	"reserve":             drawReserve,
	"runningJobs":         drawRunningJobs,
	"completeJobs":        drawComplete,
	"failJob":             drawFail,
	"scheduleRetry":       drawRetry,
	"snoozeJob":           drawSnooze,
	"rescueLostJobs":      drawRescue,
	"promoteScheduled":    drawPromote,
	"getJob":              drawJobOp("getJob", store.Tx.GetJob),
	"cancelJob":           drawCancel,
	"cancelledJobs":       drawCancelledJobs,
	"deleteJob":           drawDelete,
	"listJobs":            drawList,
	"deleteOldJobs":       drawDeleteOldJobs,
	"ensureSchedules":     drawEnsure,
	"advanceSchedule":     drawAdvance,
	"now":                 drawNow,
	"pauseQueue":          drawPauseQueue,
	"resumeQueue":         drawResumeQueue,
	"pauseAll":            drawPauseAll,
	"resumeAll":           drawResumeAll,
	"pausedAll":           drawPausedAll,
	"setQueueLimit":       drawSetQueueLimit,
	"setQueueRate":        drawSetQueueRate,
	"setQueueKeyLimit":    drawSetQueueKeyLimit,
	"skipJob":             drawSkipJob,
	"sequenceHead":        drawSequenceHead,
	"listQueues":          drawListQueues,
	"recordVacuum":        drawRecordVacuum,
	"lastVacuum":          drawLastVacuum,
	"settleWaitingJobs":   drawSettle,
	"setQueueDeadLetter":  drawSetQueueDeadLetter,
	"setQueueHistory":     drawSetQueueHistory,
	"deadLetterJob":       drawDeadLetterJob,
	"redrive":             drawRedrive,
	"retryJobs":           drawRetryJobs,
	"cancelJobsFrom":      drawCancelJobs,
	"deleteJobs":          drawDeleteJobs,
}

// opNameList is opDrawers' keys in order, for drawing one by name.
var opNameList = slices.Sorted(maps.Keys(opDrawers))

// stepKinds weights the operations a step draws: the job life cycle first
// and more than once, then the rest of opNameList once each.
var stepKinds = append([]string{
	"insertJobs", "reserve", "registerWorker", "advanceClock", "completeJobs", "failJob", "scheduleRetry",
	"insertJobs", "reserve", "advanceClock", "setQueueRate", "promoteScheduled", "crashAndRescue", "tryAcquireLease",
	"registerWorker", "completeJobs", "failJob", "scheduleRetry", "cancelJob", "deleteOldJobs", "rolledBack",
	"jobPass", "jobPass", "pauseQueue", "resumeQueue", "setQueueLimit", "vacuumJobs",
	"jobPass", "jobPass", "pauseQueue", "resumeQueue", "setQueueLimit", "snoozeJob",
	"reserve", "jobPass", "setQueueRate", "setQueueKeyLimit", "setQueueKeyLimit",
	"insertJobs", "reserve", "completeJobs", "failJob", "skipJob",
	"insertJobs", "cancelJob", "settleWaitingJobs", "settleWaitingJobs", "deleteJob", "resumeAll",
	"setQueueDeadLetter", "failJob", "deadLetterJob", "deadLetterJob", "redrive",
	"failJob", "retryJobs", "cancelJobsFrom", "deleteJobs",
	"setQueueHistory", "completeJobs", "jobPass", "setQueueHistory", "reserve", "completeJobs",
	"setQueueHistory", "insertJobs", "reserve", "jobPass",
}, opNameList...)

func drawRegister(rt *rapid.T, d *diff) op {
	id := d.freshID()
	if len(d.workers) > 0 && rapid.IntRange(0, 9).Draw(rt, "register existing") == 0 {
		id = rapid.SampledFrom(d.workers).Draw(rt, "existing worker")
	} else {
		d.workers = append(d.workers, id)
	}
	return op{"registerWorker " + id.String(), func(ctx context.Context, tx store.Tx) (string, error) {
		return "", tx.RegisterWorker(ctx, id)
	}}
}

func drawWorkerOp(name string, fn func(store.Tx, context.Context, ulid.ULID) error) func(*rapid.T, *diff) op {
	return func(rt *rapid.T, d *diff) op {
		w := d.pickWorker(rt)
		return op{name + " " + w.String(), func(ctx context.Context, tx store.Tx) (string, error) {
			return "", fn(tx, ctx, w)
		}}
	}
}

func drawShutdownDead(rt *rapid.T, d *diff) op {
	threshold := duration(rt, "threshold", 0, 5*time.Minute)
	return op{fmt.Sprintf("shutdownDeadWorkers %v", threshold), func(ctx context.Context, tx store.Tx) (string, error) {
		ids, err := tx.ShutdownDeadWorkers(ctx, threshold)
		return fmtIDs(ids), err
	}}
}

func drawDeleteOldWorkers(rt *rapid.T, _ *diff) op {
	age := duration(rt, "worker age", 0, time.Hour)
	return op{fmt.Sprintf("deleteOldWorkers %v", age), func(ctx context.Context, tx store.Tx) (string, error) {
		n, err := tx.DeleteOldWorkers(ctx, age)
		return fmt.Sprint(n), err
	}}
}

func drawExpireLease(*rapid.T, *diff) op {
	return op{"expireLease", func(ctx context.Context, tx store.Tx) (string, error) {
		ok, err := tx.ExpireLease(ctx)
		return fmt.Sprint(ok), err
	}}
}

func drawAcquire(rt *rapid.T, d *diff) op {
	w := d.pickWorker(rt)
	ttl := duration(rt, "ttl", time.Second, 10*time.Second)
	return op{fmt.Sprintf("tryAcquireLease %s %v", w, ttl), func(ctx context.Context, tx store.Tx) (string, error) {
		ok, err := tx.TryAcquireLease(ctx, w, ttl)
		return fmt.Sprint(ok), err
	}}
}

func drawLeaseBool(name string, fn func(store.Tx, context.Context, ulid.ULID) (bool, error)) func(*rapid.T, *diff) op {
	return func(rt *rapid.T, d *diff) op {
		w := d.pickWorker(rt)
		return op{name + " " + w.String(), func(ctx context.Context, tx store.Tx) (string, error) {
			ok, err := fn(tx, ctx, w)
			return fmt.Sprint(ok), err
		}}
	}
}

func drawInsert(rt *rapid.T, d *diff) op {
	jobs := make([]store.NewJob, rapid.IntRange(0, 3).Draw(rt, "batch size"))
	for i := range jobs {
		jobs[i] = d.drawNewJob(rt)
	}
	d.drawParents(rt, jobs)
	jobs = d.drawBatch(rt, jobs)
	return op{fmt.Sprintf("insertJobs %d", len(jobs)), func(ctx context.Context, tx store.Tx) (string, error) {
		dups, err := tx.InsertJobs(ctx, jobs)
		return formatDuplicates(dups), err
	}}
}

func drawReserve(rt *rapid.T, d *diff) op {
	w := d.pickWorker(rt)
	queues := d.drawQueues(rt)
	limit := rapid.IntRange(-1, 4).Draw(rt, "limit")
	return op{fmt.Sprintf("reserve %s %q %d", w, queues, limit), func(ctx context.Context, tx store.Tx) (string, error) {
		jobs, err := tx.Reserve(ctx, w, queues, limit)
		return fmtJobs(jobs), err
	}}
}

func drawRunningJobs(rt *rapid.T, d *diff) op {
	w := d.pickWorker(rt)
	return op{"runningJobs " + w.String(), func(ctx context.Context, tx store.Tx) (string, error) {
		jobs, err := tx.RunningJobs(ctx, w)
		return fmtJobs(jobs), err
	}}
}

// runningPick returns a running row and its worker most of the time, else
// any worker and job.
func (d *diff) runningPick(rt *rapid.T) (worker, job ulid.ULID) {
	if j := d.pickRow(rt, store.Running); j != nil {
		return j.StartedBy, j.ID
	}
	return d.pickWorker(rt), d.pickJob(rt)
}

// drawCompletion draws a running row's worker and id (usually) followed by
// up to more ids of any job, which may fence.
func (d *diff) drawCompletion(rt *rapid.T, more int) store.Completion {
	w, first := d.runningPick(rt)
	c := store.Completion{Worker: w, IDs: []ulid.ULID{first}}
	for range rapid.IntRange(0, more).Draw(rt, "more ids") {
		c.IDs = append(c.IDs, d.pickJob(rt))
	}
	if rapid.Bool().Draw(rt, "outputs") {
		c.Outputs = make([]json.RawMessage, len(c.IDs))
		for i := range c.Outputs {
			if out := rarely(rt, diffOutputs, 4, "output"); out != "-" {
				c.Outputs[i] = json.RawMessage(out)
			}
		}
	}
	return c
}

// diffOutputs are the outputs completions draw: "-" for none, then one no
// store accepts.
var diffOutputs = []string{"-", `{"ok":true}`, ` [1, 2] `, `"x"`, `{"a":`}

func drawComplete(rt *rapid.T, d *diff) op {
	c := d.drawCompletion(rt, 3)
	return op{fmt.Sprintf("completeJobs %s %v %q", c.Worker, c.IDs, c.Outputs), func(ctx context.Context, tx store.Tx) (string, error) {
		fenced, err := tx.CompleteJobs(ctx, c)
		return fmtIDs(fenced), err
	}}
}

func drawFail(rt *rapid.T, d *diff) op {
	w, id := d.runningPick(rt)
	reason := rapid.SampledFrom([]string{"boom", "", "timeout: 'quoted' \"text\"", "nul\x00 \xff bytes"}).Draw(rt, "reason")
	return op{fmt.Sprintf("failJob %s %s", w, id), func(ctx context.Context, tx store.Tx) (string, error) {
		return "", tx.FailJob(ctx, w, id, reason)
	}}
}

func drawRetry(rt *rapid.T, d *diff) op {
	id := d.pickFailedOrLost(rt)
	newID := d.newJobID(rt)
	delay := duration(rt, "delay", -time.Second, 2*time.Minute)
	return op{fmt.Sprintf("scheduleRetry %s %s %v", id, newID, delay), func(ctx context.Context, tx store.Tx) (string, error) {
		j, err := tx.ScheduleRetry(ctx, id, newID, delay)
		return store.FormatJob(j), err
	}}
}

func drawRescue(*rapid.T, *diff) op {
	return op{"rescueLostJobs", func(ctx context.Context, tx store.Tx) (string, error) {
		jobs, err := tx.RescueLostJobs(ctx)
		return fmtJobs(jobs), err
	}}
}

func drawPromote(*rapid.T, *diff) op {
	return op{"promoteScheduledJobs", func(ctx context.Context, tx store.Tx) (string, error) {
		n, err := tx.PromoteScheduledJobs(ctx)
		return fmt.Sprint(n), err
	}}
}

func drawJobOp(name string, fn func(store.Tx, context.Context, ulid.ULID) (store.Job, error)) func(*rapid.T, *diff) op {
	return func(rt *rapid.T, d *diff) op {
		id := d.pickJob(rt)
		return op{name + " " + id.String(), func(ctx context.Context, tx store.Tx) (string, error) {
			j, err := fn(tx, ctx, id)
			return store.FormatJob(j), err
		}}
	}
}

func drawList(rt *rapid.T, d *diff) op {
	f := store.JobFilter{
		Status: rapid.SampledFrom(append([]store.Status{"", "bogus"}, store.Statuses()...)).Draw(rt, "status"),
		Queue:  rapid.SampledFrom(diffQueues).Draw(rt, "queue filter"),
		Limit:  rapid.IntRange(-1, 3).Draw(rt, "list limit"),

		NewestFirst: rapid.Bool().Draw(rt, "newest first"),
		LastAttempt: rapid.Bool().Draw(rt, "last attempt"),
		// The bulk actions' filters: age on the store's clock (a
		// negative one is invalid), and text of the payload as enqueued,
		// spaces and all.
		OlderThan: rapid.SampledFrom([]time.Duration{0, 0, -time.Second, time.Second, time.Minute, 10 * time.Minute}).Draw(rt, "older than"),
		Text:      rapid.SampledFrom([]string{"", "", "1", "1, 2", " [", `"x"`, `{"a":`, "nothing"}).Draw(rt, "payload text"),
	}
	if rapid.Bool().Draw(rt, "previous attempt") {
		f.NextAttempt = d.pickJob(rt)
	}
	if rapid.Bool().Draw(rt, "page") {
		f.After = d.pickJob(rt)
	}
	return op{fmt.Sprintf("listJobs %+v", f), func(ctx context.Context, tx store.Tx) (string, error) {
		jobs, err := tx.ListJobs(ctx, f)
		return fmtJobs(jobs), err
	}}
}

func drawDeleteOldJobs(rt *rapid.T, _ *diff) op {
	age := duration(rt, "job age", 0, 10*time.Minute)
	limit := rapid.SampledFrom([]int{0, 1, 2, 3, 1000}).Draw(rt, "limit")
	return op{fmt.Sprintf("deleteOldJobs %v limit %d", age, limit), func(ctx context.Context, tx store.Tx) (string, error) {
		n, err := tx.DeleteOldJobs(ctx, age, limit)
		return fmt.Sprint(n), err
	}}
}

func drawEnsure(rt *rapid.T, _ *diff) op {
	names := rapid.SliceOfN(rapid.SampledFrom(diffSchedules), 0, 3).Draw(rt, "schedules")
	return op{fmt.Sprintf("ensureSchedules %q", names), func(ctx context.Context, tx store.Tx) (string, error) {
		return "", tx.EnsureSchedules(ctx, names)
	}}
}

func drawAdvance(rt *rapid.T, d *diff) op {
	name := rapid.SampledFrom(diffSchedules[:3]).Draw(rt, "schedule")
	at := d.clock.Now().Add(duration(rt, "next run in", 0, time.Hour))
	var job ulid.ULID
	if rapid.IntRange(0, 4).Draw(rt, "null job") > 0 {
		job = d.pickJob(rt)
	}
	return op{fmt.Sprintf("advanceSchedule %s %s %s", name, ts(at), id(job)), func(ctx context.Context, tx store.Tx) (string, error) {
		return "", tx.AdvanceSchedule(ctx, name, at, job)
	}}
}

func drawNow(*rapid.T, *diff) op {
	return op{"now", func(ctx context.Context, tx store.Tx) (string, error) {
		t, err := tx.Now(ctx)
		return ts(t), err
	}}
}

// drawCrashAndRescue is the leader's pass after a worker died: shut down
// one worker, usually one with a running row, then rescue the running jobs
// of every shut-down worker.
func drawCrashAndRescue(rt *rapid.T, d *diff) op {
	w, _ := d.runningPick(rt)
	return op{"shutdownWorker+rescueLostJobs " + w.String(), func(ctx context.Context, tx store.Tx) (string, error) {
		jobs, err := shutdownAndRescue(ctx, tx, w)
		return fmtJobs(jobs), err
	}}
}
