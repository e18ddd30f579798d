package sim

import (
	"context"
	"errors"
	"fmt"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// The read-only fault (kind ReadOnly): after a failover, a connection of
// the pool still points at the old primary, now a standby, and every
// write on it fails with SQLSTATE 25006 until the store drops it. store/pg
// must answer such a failure with store.ErrUnavailable and close that
// connection before it goes back to the pool, so that the retry connects
// afresh (dropIfReadOnly); a store that kept it would fail every write on
// it forever.
//
// The worker's call fails before its transaction ran, on every store. On
// a store that can demote a connection (ConnDemoter: store/pg, pool of
// one), the simulator first makes it meet the real thing: it demotes the
// connection, has a write refused on it, and retries the write, which
// must reach a node that takes writes. So the in-memory run and the
// PostgreSQL run give the same trace, and a PostgreSQL store that keeps
// the connection fails the run.

// ConnDemoter is a store whose connection pool can be left on a node that
// no longer takes writes: DemoteConn makes the connection its next
// transaction gets refuse writes (store/pg: SET SESSION
// default_transaction_read_only), as a failover leaves a connection to a
// demoted primary; only the store closing it ends that.
type ConnDemoter interface {
	DemoteConn(ctx context.Context) error
}

// errReadOnly is what a worker's call that met a read-only node returns,
// on every store, so that the traces agree.
var errReadOnly = unavailable("simulated failover: the connection's node is read-only; connection dropped")

// pooledOnly holds the marks only runs on a store with a pool (simulate
// -store pg without -interleave) can reach.
var pooledOnly = [numMarks]bool{MarkReadOnlyDropped: true}

// Pooled reports whether only runs on a store with a connection pool
// (simulate -store pg, serial) can reach m.
func (m Mark) Pooled() bool { return pooledOnly[m] }

// OwnPass reports whether only runs on a store with a job pass of its own
// (store.JobPasser: simulate -store pg, serial or interleaved, sim.ownPass)
// can reach m. Every such run reaches it, interleaved or not.
func (m Mark) OwnPass() bool { return m == MarkPipelinedPass }

// readOnly is the read-only fault on p's call: see the top of this file.
func (f *faultStore) readOnly(ctx context.Context) error {
	s, p := f.s, f.p
	s.tr.printf(s.now, p.name, "store connection on a read-only node (failover): write refused")
	d := s.demoter()
	if d == nil {
		return errReadOnly
	}
	if err := s.readOnlyRetried(ctx, p, d); err != nil {
		s.stop(nil, fmt.Errorf("seed %d: %s's call on a read-only connection: %w", s.sc.Seed, p.name, err))
		return errEnded
	}
	s.res.Marks.set(MarkReadOnlyDropped)
	return errReadOnly
}

// demoter returns the store under test if it can demote a connection.
func (s *sim) demoter() ConnDemoter {
	if s.interleaving() {
		return nil // each process has connections of its own: not simulated
	}
	if d, ok := s.be.(ConnDemoter); ok {
		return d
	}
	if b, ok := s.be.(*diffBackend); ok {
		if d, ok := b.Store.(ConnDemoter); ok {
			return d
		}
	}
	return nil
}

// readOnlyRetried demotes the connection, requires that a write on it
// fail with store.ErrUnavailable, and that the same write, retried, reach
// a node that takes writes: the store dropped the read-only connection.
func (s *sim) readOnlyRetried(ctx context.Context, p *proc, d ConnDemoter) error {
	if err := d.DemoteConn(ctx); err != nil {
		return fmt.Errorf("demote the connection: %w", err)
	}
	probe := func(tx store.Tx) error { return probeWrite(ctx, tx) }
	if err := s.procTx(ctx, p, probe); !errors.Is(err, store.ErrUnavailable) {
		return fmt.Errorf("a write answered %v, want store.ErrUnavailable (SQLSTATE 25006 is worth a retry)", err)
	}
	if err := s.procTx(ctx, p, probe); errors.Is(err, store.ErrUnavailable) {
		return fmt.Errorf("its retry failed too, %w: the store kept the read-only connection in its pool", err)
	}
	return nil
}

// probeWrite writes nothing, but as a write: the heartbeat of a worker that
// does not exist, store.ErrNotFound on a node that takes writes.
func probeWrite(ctx context.Context, tx store.Tx) error {
	err := tx.Heartbeat(ctx, ulid.ULID{})
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}
