package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tickwork/tickwork/internal/proccpu"
)

// The processor time of one run's own backends: the server's figure
// (proccpu.Server) counts every session on the server, and on a machine
// shared with other work that includes theirs. A run's store connects
// with an application_name of its own (withAppName), so its backends,
// its LISTEN connection and the autovacuum workers on its schema can be
// told apart in pg_stat_activity and read in /proc one by one.

// backendSampleEvery is how often the meter looks for the run's backends:
// a backend that exits loses at most this much of its time.
const backendSampleEvery = 100 * time.Millisecond

// withAppName returns conn, a postgres:// URL or a keyword/value string,
// with application_name set to name.
func withAppName(conn, name string) string {
	if u, err := url.Parse(conn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("application_name", name)
		// The server's URL parser, unlike a form's, keeps "+" as it is.
		u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
		return u.String()
	}
	return conn + " application_name='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(name) + "'"
}

// backendMeter samples the processor time of the backends of a run.
type backendMeter struct {
	db       *pgxpool.Pool
	names    []string // application names of the run's sessions
	vacuumOn string   // LIKE pattern of autovacuum queries on its schema
	mu       sync.Mutex
	first    map[uint32]time.Duration
	last     map[uint32]time.Duration
	seen     bool
	cancel   context.CancelFunc
	done     chan struct{}
}

// sessionName is the application name every session of a run on schema
// carries (withAppName), by which its backends are metered.
func sessionName(schema string) string { return "bench " + schema }

// startBackendMeter samples, until stop, the backends of a run on schema:
// its sessions (sessionName), a tickwork store's listener, which names
// itself "tickwork listen <schema>" (store/pg/listen.go), and the
// autovacuum workers on schema.
func startBackendMeter(ctx context.Context, db *pgxpool.Pool, schema string) *backendMeter {
	names := []string{sessionName(schema), "tickwork listen " + schema}
	m := &backendMeter{db: db, names: names, vacuumOn: "%" + schema + ".%",
		first: map[uint32]time.Duration{}, last: map[uint32]time.Duration{}, done: make(chan struct{})}
	ctx, m.cancel = context.WithCancel(ctx)
	m.sample(ctx, true)
	go func() {
		defer close(m.done)
		for t := time.NewTicker(backendSampleEvery); ; {
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
				m.sample(ctx, false)
			}
		}
	}()
	return m
}

// sample reads each backend's time; a backend first seen after the start
// began within the run, so all its time counts.
func (m *backendMeter) sample(ctx context.Context, start bool) {
	rows, err := m.db.Query(ctx, `SELECT pid FROM pg_stat_activity
		WHERE application_name = ANY ($1) OR backend_type = 'autovacuum worker' AND query LIKE $2`, m.names, m.vacuumOn)
	if err != nil {
		return // a sample missed; the next one reads the same counters
	}
	defer rows.Close()
	m.mu.Lock()
	defer m.mu.Unlock()
	for rows.Next() {
		var pid uint32
		if rows.Scan(&pid) != nil {
			continue
		}
		used, ok := proccpu.Process(pid)
		if !ok {
			continue
		}
		m.seen = true
		if _, known := m.first[pid]; !known {
			m.first[pid] = 0
			if start {
				m.first[pid] = used
			}
		}
		m.last[pid] = used
	}
}

// stop takes a last sample and returns the time the backends used since
// the start, and false if none was visible in /proc.
func (m *backendMeter) stop(ctx context.Context) (time.Duration, bool) {
	m.cancel()
	<-m.done
	m.sample(ctx, false)
	m.mu.Lock()
	defer m.mu.Unlock()
	var sum time.Duration
	for pid, last := range m.last {
		sum += last - m.first[pid]
	}
	return sum, m.seen
}

// windowCost is the processor time a window used: the server's and this
// process's, and its own backends' when it metered them.
type windowCost struct {
	proccpu.Reading
	Backends     time.Duration
	BackendsSeen bool
}

// meterRun starts metering the processor time of a run on schema: the
// server's, this process's, and that of the run's own backends
// (startBackendMeter, through db). The function it returns ends the
// metering.
func meterRun(ctx context.Context, db *pgxpool.Pool, schema string) func() windowCost {
	before := proccpu.Read()
	m := startBackendMeter(ctx, db, schema)
	return func() windowCost {
		c := windowCost{Reading: proccpu.Read().Since(before)}
		c.Backends, c.BackendsSeen = m.stop(context.WithoutCancel(ctx))
		return c
	}
}

// report is the window line's processor figures per job.
func (c windowCost) report(jobs int) string {
	s := cpuReport(c.Reading, jobs)
	if c.BackendsSeen {
		s += fmt.Sprintf("; this run's backends %.1f µs/job", perJob(c.Backends, jobs))
	}
	return s
}
