package console

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/format"
	"github.com/tickwork/tickwork/store"
)

// The documents behind the pages: each page renders one, and its JSON
// endpoint returns the same one. Times are the database's (UTC); ages are
// seconds before Now, the database's now() when the page was read.

// Overview is the state of every queue and the recent throughput.
type Overview struct {
	Now           time.Time      `json:"now"`
	WindowSeconds int            `json:"window_seconds"`
	Queues        []QueueStats   `json:"queues"`
	Throughput    []Throughput   `json:"throughput"` // seconds with any result, oldest first
	Completed     int            `json:"completed"`  // in the window, all queues
	Failed        int            `json:"failed"`     // failed or lost, in the window
	FailureRate   float64        `json:"failure_rate"`
	Statuses      []store.Status `json:"-"` // the column order of the page
	// PausedAllAt is when an operator paused every queue at once
	// (pause-all); null: not paused so.
	PausedAllAt     *time.Time `json:"paused_all_at"`
	PausedAllForSec *float64   `json:"paused_all_for_seconds"` // null: not paused all
}

// QueueStats is one queue: its controls, its rows by status, how long its
// oldest ready job has waited, and its results in the window.
type QueueStats struct {
	Queue             string               `json:"queue"`
	PausedAt          *time.Time           `json:"paused_at"`           // null: not paused
	PausedForSec      *float64             `json:"paused_for_seconds"`  // null: not paused
	Limit             int                  `json:"limit"`               // most running at once across workers; 0: none
	KeyLimit          int                  `json:"per_key_limit"`       // most running at once per partition key; 0: none
	Rate              int                  `json:"rate"`                // most starts per rate period across workers; 0: none
	RatePeriodSec     float64              `json:"rate_period_seconds"` // 0: no rate
	RateShown         string               `json:"-"`                   // the rate as the CLI writes it: 100/1m
	DeadLetter        string               `json:"dead_letter"`         // where its jobs that fail for good go; "": none
	History           string               `json:"history"`             // keep, or none: a completion deletes its job's row
	Counts            map[store.Status]int `json:"counts"`
	OldestReadyAgeSec *float64             `json:"oldest_ready_age_seconds"` // null: nothing ready
	Completed         int                  `json:"completed"`
	Failed            int                  `json:"failed"`
	FailureRate       float64              `json:"failure_rate"`
}

// Throughput is the results of one second (Unix time).
type Throughput struct {
	Second    int64 `json:"second"`
	Completed int   `json:"completed"`
	Failed    int   `json:"failed"`
}

var allStatuses = store.Statuses()

// readTx runs fn in one read-only REPEATABLE READ transaction, so that every
// number on a page comes from the same snapshot; fn may use the store's own
// methods on the same transaction through st.
// Every statement in it ends at the query timeout (SET LOCAL, which a
// transaction-mode pooler keeps to the transaction).
func (s *Server) readTx(ctx context.Context, fn func(db pgx.Tx, st store.Tx) error) error {
	err := pgx.BeginTxFunc(ctx, s.opts.Store.Pool(), pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(db pgx.Tx) error {
		if _, err := db.Exec(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", s.opts.QueryTimeout.Milliseconds())); err != nil {
			return fmt.Errorf("set the console's statement timeout: %w", err)
		}
		return s.opts.Store.InPgxTx(ctx, db, func(st store.Tx) error { return fn(db, st) })
	})
	return timedOut(err, s.opts.QueryTimeout, "reading the page")
}

func (s *Server) overview(ctx context.Context) (*Overview, error) {
	o := &Overview{WindowSeconds: int(s.opts.Window / time.Second), Statuses: allStatuses}
	byQueue := map[string]*QueueStats{}
	queue := func(name string) *QueueStats {
		q := byQueue[name]
		if q == nil {
			q = &QueueStats{Queue: name, Counts: map[store.Status]int{}, History: store.HistoryKeep}
			byQueue[name] = q
		}
		return q
	}
	err := s.readTx(ctx, func(db pgx.Tx, st store.Tx) error {
		var err error
		if o.Now, err = st.Now(ctx); err != nil {
			return err
		}
		if err := queueControls(ctx, st, o.Now, queue); err != nil {
			return err
		}
		if o.PausedAllAt, o.PausedAllForSec, err = pausedAll(ctx, st, o.Now); err != nil {
			return err
		}
		if err := s.oldestReady(ctx, db, o.Now, queue); err != nil {
			return err
		}
		return s.throughput(ctx, db, o, queue)
	})
	if err != nil {
		return nil, fmt.Errorf("read the overview: %w", err)
	}
	for _, q := range byQueue {
		q.FailureRate = rate(q.Failed, q.Completed)
		o.Queues = append(o.Queues, *q)
	}
	slices.SortFunc(o.Queues, func(a, b QueueStats) int { return cmp.Compare(a.Queue, b.Queue) })
	o.FailureRate = rate(o.Failed, o.Completed)
	return o, nil
}

// queueControls reads every queue's pause, limit, rate and counts by status from
// the store's queue listing (one statement for all queues).
func queueControls(ctx context.Context, st store.Tx, now time.Time, queue func(string) *QueueStats) error {
	list, err := st.ListQueues(ctx)
	if err != nil {
		return err
	}
	for _, l := range list {
		q := queue(l.Name)
		q.Counts, q.Limit, q.KeyLimit, q.DeadLetter, q.History = l.Counts, l.Limit, l.KeyLimit, l.DeadLetter, l.History()
		if l.Rate > 0 {
			q.Rate, q.RatePeriodSec, q.RateShown = l.Rate, l.RatePeriod.Seconds(), format.Rate(l.Rate, l.RatePeriod)
		}
		if !l.PausedAt.IsZero() {
			at, sec := l.PausedAt, max(now.Sub(l.PausedAt).Seconds(), 0)
			q.PausedAt, q.PausedForSec = &at, &sec
		}
	}
	return nil
}

// pausedAll reads when every queue was paused at once, and for how long
// (nil, nil: not paused so).
func pausedAll(ctx context.Context, st store.Tx, now time.Time) (*time.Time, *float64, error) {
	at, err := st.PausedAll(ctx)
	if err != nil || at.IsZero() {
		return nil, nil, err
	}
	sec := max(now.Sub(at).Seconds(), 0)
	return &at, &sec, nil
}

// oldestReady finds, per queue, the available job that has waited longest
// (through the partial index of available rows).
func (s *Server) oldestReady(ctx context.Context, db pgx.Tx, now time.Time, queue func(string) *QueueStats) error {
	rows, err := db.Query(ctx, s.sql(`SELECT queue, min(scheduled_at) FROM {jobs} WHERE status = 'available' GROUP BY queue`))
	if err != nil {
		return fmt.Errorf("find the oldest available jobs: %w", err)
	}
	var name string
	var oldest time.Time
	_, err = pgx.ForEachRow(rows, []any{&name, &oldest}, func() error {
		age := max(now.Sub(oldest).Seconds(), 0)
		queue(name).OldestReadyAgeSec = &age
		return nil
	})
	return err
}

// throughput counts results per queue and second over the window, through
// the index of terminal rows by the time they ended.
func (s *Server) throughput(ctx context.Context, db pgx.Tx, o *Overview, queue func(string) *QueueStats) error {
	rows, err := db.Query(ctx, s.sql(`
		SELECT queue, floor(extract(epoch FROM coalesce(completed_at, failed_at, cancelled_at)))::bigint AS sec,
		       count(*) FILTER (WHERE status = 'completed'), count(*) FILTER (WHERE status IN ('failed', 'lost'))
		FROM {jobs}
		WHERE status IN ('completed', 'failed', 'lost', 'cancelled')
		  AND coalesce(completed_at, failed_at, cancelled_at) > $1::timestamptz - $2::interval
		GROUP BY queue, sec ORDER BY sec`), o.Now, s.opts.Window)
	if err != nil {
		return fmt.Errorf("count recent results: %w", err)
	}
	var name string
	var sec int64
	var done, failed int
	_, err = pgx.ForEachRow(rows, []any{&name, &sec, &done, &failed}, func() error {
		q := queue(name)
		q.Completed += done
		q.Failed += failed
		o.Completed += done
		o.Failed += failed
		if n := len(o.Throughput); n > 0 && o.Throughput[n-1].Second == sec {
			o.Throughput[n-1].Completed += done
			o.Throughput[n-1].Failed += failed
		} else {
			o.Throughput = append(o.Throughput, Throughput{Second: sec, Completed: done, Failed: failed})
		}
		return nil
	})
	return err
}

func rate(failed, completed int) float64 {
	if failed+completed == 0 {
		return 0
	}
	return float64(failed) / float64(failed+completed)
}

// Workers is every worker row still kept, the lease, and what each runs.
type Workers struct {
	Now     time.Time    `json:"now"`
	Leader  *Leader      `json:"leader"` // null: no lease
	Workers []WorkerInfo `json:"workers"`
}

// Leader is the lease: who holds it, since when (its term) and until when.
type Leader struct {
	Worker    ulid.ULID `json:"worker"`
	ElectedAt time.Time `json:"elected_at"`
	ExpiresAt time.Time `json:"expires_at"`
	TermSec   float64   `json:"term_seconds"`
	Expired   bool      `json:"expired"`
}

// WorkerInfo is one worker row (one start of a worker process).
type WorkerInfo struct {
	ID              ulid.ULID  `json:"id"`
	State           string     `json:"state"` // alive, unresponsive (heartbeat older than the dead threshold) or shut down
	RegisteredAt    time.Time  `json:"registered_at"`
	LastSeenAt      time.Time  `json:"last_seen_at"`
	HeartbeatAgeSec float64    `json:"heartbeat_age_seconds"`
	ShutdownAt      *time.Time `json:"shutdown_at"`
	Running         int        `json:"running"`
	Leader          bool       `json:"leader"`
}

func (s *Server) workers(ctx context.Context) (*Workers, error) {
	w := &Workers{}
	err := s.readTx(ctx, func(db pgx.Tx, st store.Tx) error {
		var err error
		if w.Now, err = st.Now(ctx); err != nil {
			return err
		}
		rows, err := st.ListWorkers(ctx)
		if err != nil {
			return err
		}
		lease, err := st.GetLease(ctx)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return err
		default:
			w.Leader = &Leader{Worker: lease.WorkerID, ElectedAt: lease.ElectedAt, ExpiresAt: lease.ExpiresAt,
				TermSec: w.Now.Sub(lease.ElectedAt).Seconds(), Expired: !lease.ExpiresAt.After(w.Now)}
		}
		running, err := s.runningByWorker(ctx, db)
		if err != nil {
			return err
		}
		for _, r := range rows {
			w.Workers = append(w.Workers, s.workerInfo(r, w, running[r.ID]))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the workers: %w", err)
	}
	// Newest first: the live workers of today above yesterday's.
	slices.Reverse(w.Workers)
	return w, nil
}

func (s *Server) workerInfo(r store.Worker, w *Workers, running int) WorkerInfo {
	info := WorkerInfo{ID: r.ID, RegisteredAt: r.RegisteredAt, LastSeenAt: r.LastSeenAt,
		HeartbeatAgeSec: w.Now.Sub(r.LastSeenAt).Seconds(), Running: running, State: "alive"}
	if w.Leader != nil && w.Leader.Worker == r.ID {
		info.Leader = true
	}
	switch {
	case !r.ShutdownAt.IsZero():
		t := r.ShutdownAt
		info.ShutdownAt, info.State = &t, "shut down"
	case w.Now.Sub(r.LastSeenAt) > s.opts.DeadThreshold:
		info.State = "unresponsive"
	}
	return info
}

// runningByWorker counts running jobs per worker (through the partial index
// of running rows).
func (s *Server) runningByWorker(ctx context.Context, db pgx.Tx) (map[ulid.ULID]int, error) {
	rows, err := db.Query(ctx, s.sql(`SELECT started_by, count(*) FROM {jobs} WHERE status = 'running' GROUP BY started_by`))
	if err != nil {
		return nil, fmt.Errorf("count running jobs: %w", err)
	}
	out := map[ulid.ULID]int{}
	var id [16]byte
	var n int
	_, err = pgx.ForEachRow(rows, []any{&id, &n}, func() error {
		out[ulid.ULID(id)] = n
		return nil
	})
	return out, err
}
