package main

import (
	"context"

	"github.com/tickwork/tickwork/sim"
	"github.com/tickwork/tickwork/store/pg"
)

// demotable is the serial run's store with its pool of one connection
// (pgRunner): it can demote that connection for the read-only fault.
type demotable struct {
	*pg.Store
	demoted bool // a connection was demoted since the last fresh
}

var _ sim.ConnDemoter = (*demotable)(nil)

// DemoteConn makes the pool's connection refuse writes for the rest of its
// session, as a primary demoted by a failover does: the connection the
// next transaction gets, since the pool holds one.
func (d *demotable) DemoteConn(ctx context.Context) error {
	d.demoted = true
	_, err := d.Pool().Exec(ctx, "SET SESSION default_transaction_read_only = on")
	return err
}

// fresh closes the pool's connections if one was demoted, so that a seed
// never starts on a read-only connection an earlier seed left (a store
// that keeps it, as the planted bug pg-readonly-kept does, fails that
// seed only).
func (d *demotable) fresh() {
	if d.demoted {
		d.Pool().Reset()
		d.demoted = false
	}
}

// pooledRun reports whether cfg's seeds run on a store whose pool the
// simulator reaches (-store pg, serial): only there is the read-only fault
// drawn and its mark reachable.
func pooledRun(cfg config) bool { return cfg.store == "pg" && !cfg.interleave }
