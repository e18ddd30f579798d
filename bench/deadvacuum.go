package main

import (
	"context"
	"time"
)

// deadVacuumThreshold is how many dead rows in jobs make the "dead" vacuum
// mode vacuum it: about 5,000 jobs' worth (each leaves two dead versions).
const deadVacuumThreshold = 10_000

// vacuumResult is what vacuumOnDead did.
type vacuumResult struct {
	n   int
	err error
}

// vacuumIn runs vacuumOnDead in the background in mode "dead"; in the
// other modes the result is there at once.
func (s *tickworkSystem) vacuumIn(ctx context.Context, mode, schema string) <-chan vacuumResult {
	ch := make(chan vacuumResult, 1)
	if mode != "dead" {
		ch <- vacuumResult{}
		return ch
	}
	go func() {
		n, err := s.vacuumOnDead(ctx, schema)
		ch <- vacuumResult{n, err}
	}()
	return ch
}

// vacuumOnDead vacuums the schema's jobs table whenever the statistics show
// more than deadVacuumThreshold dead rows in it, until ctx ends, and
// returns how many times it did. This is what a leader duty could do on a
// server whose autovacuum is off, or more often than the server's
// autovacuum_naptime lets autovacuum look: VACUUM runs on a pooled
// connection, outside any transaction (it cannot run in one).
func (s *tickworkSystem) vacuumOnDead(ctx context.Context, schema string) (int, error) {
	vacuums := 0
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	q := "SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'jobs'"
	for {
		select {
		case <-ctx.Done():
			return vacuums, nil
		case <-tick.C:
		}
		var dead int64
		err := s.st.Pool().QueryRow(ctx, q, schema).Scan(&dead)
		if err == nil && dead > deadVacuumThreshold {
			_, err = s.st.Pool().Exec(ctx, "VACUUM "+s.tables+".jobs")
			vacuums++
		}
		if err != nil {
			if ctx.Err() != nil {
				return vacuums, nil // the run is over
			}
			return vacuums, err
		}
	}
}
