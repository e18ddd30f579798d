package pg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

var _ store.JobPasser = (*Store)(nil)

// Every statement of a job pass on jobs is planned with index scans only
// (indexScansOnlySQL, which also forces the generic plan from the first
// execution), the completions as much as the reservation. Without it the
// statements, prepared once per connection, would keep the generic plan
// PostgreSQL settles on after a few executions until the table's
// statistics change, which with autovacuum off is never: a worker that
// started on a small table, where a sequential scan is the cheapest way to
// find a few ids, kept reading the whole table for every completion as it
// grew (15,450 rows read to complete 50 jobs after 300 passes, in a
// benchmark that started with 500 rows). A statement the pass shares with
// a Tx method (completeSQL, cancelledSQL) is guarded there too, since the
// plan is the prepared statement's, whichever settings planned it first;
// the heartbeat, of the small workers table, is guarded in neither.

// RunJobPass sends the whole pass as one pipelined batch (store.RunJobPass
// has checked its outputs): one round trip,
// in the implicit transaction PostgreSQL gives the statements of one sync,
// so they commit together or not at all. The statements are the ones the
// Tx methods run; the first also reads the store time and share-locks the
// worker's row, as Reserve does. On this repository's benchmark machine a
// round trip costs about as much as reserving 15 jobs, and the transaction
// with separate statements made four of them.
func (s *Store) RunJobPass(ctx context.Context, p store.JobPass) (store.JobPassResult, error) {
	return s.runJobPass(ctx, p, s.nowParam())
}

// runJobPass is RunJobPass at store time now. A pass sent again after a
// refusal keeps the time the first send read from Options.Now: a
// simulator that stamps the pass's commit with the store time it read
// when the call began (sim.interleavedPass) cannot see a second reading,
// nor learn it when that batch's answer is lost. Without Options.Now each
// send has its own transaction's now(), as every transaction does.
func (s *Store) runJobPass(ctx context.Context, p store.JobPass, now pgtype.Timestamptz) (store.JobPassResult, error) {
	b := &pgx.Batch{}
	b.Queue(s.stmt.passLive, now, idArg(p.Worker)) // queueLive's, but for a planted bug
	heartbeat := p.Heartbeats()
	if heartbeat {
		b.Queue(s.sql(heartbeatSQL), now, idArg(p.Worker))
	}
	b.Queue(indexScansOnlySQL) // for the rest of the pass's transaction (above)
	reserving := p.Reserves()
	full := reserving && s.controlled.Load()
	for _, c := range p.Complete {
		if len(c.IDs) > 0 {
			outputs, args := completeArgs(c, now)
			mode := completeDeleting
			switch {
			case full:
				mode = completeRecording
			case !s.noHistory.Load():
				mode = completeKeeping
			}
			b.Queue(s.stmt.completion(outputs, mode), args...)
		}
	}
	if len(p.Executing) > 0 {
		b.Queue(s.sql(cancelledSQL), idArgs(p.Executing))
	}
	var epoch uint64
	if len(p.Complete) > 0 && s.dependents.Load() {
		s.hints.forget() // a completion may release a waiting job below a hint
	}
	if reserving {
		epoch = s.queueReserveRows(b, now, p.Worker, p.Queues, p.Limit, full, false) // the pass's last statement
	}
	var res store.JobPassResult
	err := s.sendBatch(ctx, b, func(br pgx.BatchResults) (err error) {
		res, err = s.readJobPass(br, p, heartbeat, reserving, full, epoch)
		return err
	})
	if err != nil {
		s.hints.forget() // its reservation may be rolled back
		// A completion that refused (keephistory.go) rolled the pass back
		// whole: it is sent again, deleting as the queues say.
		if refusedHistory(err) {
			s.noHistory.Store(true) // never cleared, so the pass is sent again once
			return s.runJobPass(ctx, p, now)
		}
		return store.JobPassResult{}, fmt.Errorf("job pass of worker %s: %w", p.Worker, s.classify(err))
	}
	return res, nil
}

// readJobPass reads the answers to RunJobPass's batch in order and closes
// it; the close reports the commit.
func (s *Store) readJobPass(br pgx.BatchResults, p store.JobPass, heartbeat, reserving, full bool, epoch uint64) (res store.JobPassResult, err error) {
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	var live bool
	if res.Now, live, err = readLive(br); err != nil {
		return res, err
	}
	res.Dead = !live && (heartbeat || reserving)
	if heartbeat {
		if _, err := br.Exec(); err != nil {
			return res, err
		}
	}
	if _, err := br.Exec(); err != nil { // indexScansOnlySQL
		return res, err
	}
	for _, c := range p.Complete {
		if len(c.IDs) == 0 {
			continue
		}
		rows, err := br.Query()
		var fenced []ulid.ULID
		if err == nil {
			fenced, err = readFenced(rows, c.IDs)
		}
		if err != nil {
			return res, err
		}
		if !mutant.On(mutant.PGPassFencedDropped) {
			res.Fenced = append(res.Fenced, fenced...)
		}
	}
	if len(p.Executing) > 0 {
		rows, err := br.Query()
		if err == nil {
			res.Cancelled, err = readIDs(rows)
		}
		if err != nil {
			return res, err
		}
	}
	if reserving {
		res.Reserved, err = s.readReserved(br, p.Limit, full, false, epoch)
	}
	return res, err
}
