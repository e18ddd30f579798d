package pg_test

import (
	"testing"
	"time"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/store/pg/pgtest"
	"github.com/tickwork/tickwork/store/storetest"
)

// differentialChecks is how many random operation sequences the normal test
// run applies to store/pg and store/mem side by side (-rapid.checks
// overrides it).
const differentialChecks = 100

// TestDifferentialWithMem requires store/pg to return the same results and
// hold the same rows as store/mem after every step of random sequences.
func TestDifferentialWithMem(t *testing.T) {
	storetest.RunDifferential(t, pgtest.Recycler(t),
		func(_ *testing.T, now func() time.Time) store.Store { return mem.New(now) }, long.Count(differentialChecks, 10))
}
