package worker

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/tickwork/tickwork/worker/engine"
)

// instrumentationName names tickwork's meter and tracer.
const instrumentationName = "github.com/tickwork/tickwork/worker"

// instruments are the worker's OpenTelemetry metrics (wakeups, tick and
// job durations, active jobs), with the original worker's names, plus
// counts of fenced results and of the rows retention deleted.
type instruments struct {
	wakeups      metric.Int64Counter
	tickDuration metric.Float64Histogram
	process      metric.Float64Histogram
	active       metric.Int64UpDownCounter
	fenced       metric.Int64Counter
	retained     metric.Int64Counter

	// wakeupReasons holds the option of each reason Run's loop wakes for,
	// so that counting a wakeup looks up no joined key.
	wakeupReasons map[string]metric.MeasurementOption

	options sync.Map // attribute pairs joined by NUL -> metric.MeasurementOption
}

// attrs returns the measurement option for string attribute pairs (key,
// value, key, value …), built once per combination: a busy worker records
// several measurements per job, and building attribute sets allocates.
func (in *instruments) attrs(pairs ...string) metric.MeasurementOption {
	key := strings.Join(pairs, "\x00")
	if o, ok := in.options.Load(key); ok {
		return o.(metric.MeasurementOption)
	}
	kvs := make([]attribute.KeyValue, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		kvs = append(kvs, attribute.String(pairs[i], pairs[i+1]))
	}
	o := metric.WithAttributeSet(attribute.NewSet(kvs...))
	in.options.Store(key, o)
	return o
}

func newInstruments(m metric.Meter) (*instruments, error) {
	var in instruments
	var err error
	if in.wakeups, err = m.Int64Counter("job.worker.wakeups",
		metric.WithDescription("Times the worker loop woke up, by reason: sleep, task or notification")); err != nil {
		return nil, err
	}
	if in.tickDuration, err = m.Float64Histogram("job.worker.tick_duration", metric.WithUnit("ms"),
		metric.WithDescription("Duration of one worker loop iteration")); err != nil {
		return nil, err
	}
	if in.process, err = m.Float64Histogram("job.process.duration", metric.WithUnit("ms"),
		metric.WithDescription("Duration of one job attempt, by queue, result and decision")); err != nil {
		return nil, err
	}
	if in.active, err = m.Int64UpDownCounter("job.active_tasks",
		metric.WithDescription("Jobs executing on this worker, by queue")); err != nil {
		return nil, err
	}
	if in.fenced, err = m.Int64Counter("job.result.fenced",
		metric.WithDescription("Results refused because the job no longer ran under this worker")); err != nil {
		return nil, err
	}
	if in.retained, err = m.Int64Counter("job.retention.deleted",
		metric.WithDescription("Rows this worker's leader passes deleted past their retention, by table: jobs or workers")); err != nil {
		return nil, err
	}
	in.wakeupReasons = map[string]metric.MeasurementOption{}
	for _, r := range []string{"sleep", "task", "notification"} {
		in.wakeupReasons[r] = in.attrs("reason", r)
	}
	return &in, nil
}

func (in *instruments) wakeup(ctx context.Context, reason string) {
	o, ok := in.wakeupReasons[reason]
	if !ok {
		o = in.attrs("reason", reason)
	}
	in.wakeups.Add(ctx, 1, o)
}

// observe logs a core event at a level matching its importance, counts
// fenced results and retention's deletions, and passes the event on.
func (w *Worker) observe(e engine.Event) {
	switch e.Kind {
	case engine.EventResultFenced:
		w.inst.fenced.Add(context.Background(), 1, w.inst.attrs("queue", e.Job.Queue))
	case engine.EventJobsDeleted:
		w.inst.retained.Add(context.Background(), int64(e.Count), w.inst.attrs("table", "jobs"))
	case engine.EventWorkersDeleted:
		w.inst.retained.Add(context.Background(), int64(e.Count), w.inst.attrs("table", "workers"))
	}
	level := slog.LevelDebug
	switch e.Kind {
	case engine.EventShutdownAbandoned, engine.EventReleaseAbandoned:
		level = slog.LevelError
	case engine.EventStoreError, engine.EventResultFenced, engine.EventScheduleNoNextTime, engine.EventDeclaredDead, engine.EventReleasedAtShutdown, engine.EventLeaseLost, engine.EventDrainDeadline,
		engine.EventRetryAbandoned:
		level = slog.LevelWarn
	case engine.EventRegistered, engine.EventLeaseAcquired, engine.EventShutDown, engine.EventLeaseReleased, engine.EventDeadWorkersShutDown, engine.EventJobRescued,
		engine.EventJobCancelled, engine.EventVacuumClaimed, engine.EventVacuumEnded:
		level = slog.LevelInfo
	}
	if w.log.Enabled(context.Background(), level) {
		w.log.LogAttrs(context.Background(), level, e.Kind.String(), eventAttrs(e)...)
	}
	if w.obs != nil {
		w.obs.Observe(e)
	}
}

// eventAttrs are the log attributes of an event: worker id, and job id,
// queue and attempt when it concerns a job.
func eventAttrs(e engine.Event) []slog.Attr {
	attrs := []slog.Attr{slog.String("worker_id", e.Worker.String())}
	if !e.Job.ID.IsZero() {
		attrs = append(attrs, slog.String("job_id", e.Job.ID.String()), slog.String("queue", e.Job.Queue), slog.Int("attempt", e.Job.Attempt))
	}
	if e.Next != nil {
		attrs = append(attrs, slog.String("next_job_id", e.Next.ID.String()), slog.Duration("delay", e.Delay))
	}
	switch e.Kind { // the decision taken, whatever the handler asked
	case engine.EventRetryScheduled:
		attrs = append(attrs, slog.String("decision", Retry.String()))
	case engine.EventRetryAbandoned:
		attrs = append(attrs, slog.String("decision", Fail.String()))
	}
	if e.Reason != "" {
		attrs = append(attrs, slog.String("reason", e.Reason))
	}
	if e.Schedule != "" {
		attrs = append(attrs, slog.String("schedule", e.Schedule), slog.Time("cron_time", e.CronTime))
	}
	if e.Count != 0 {
		attrs = append(attrs, slog.Int("count", e.Count))
	}
	if e.Err != nil {
		attrs = append(attrs, slog.String("error", e.Err.Error()))
	}
	return attrs
}
