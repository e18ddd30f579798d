package pg_test

import (
	"testing"

	"github.com/tickwork/tickwork/store/pg/pgtest"
	"github.com/tickwork/tickwork/store/storetest"
)

// TestConformance runs the suite store/mem passes, with the suite's clock
// as the store's now, its groups of checks on three schemas at once, each
// emptied between cases: the checks wait on round trips far more than
// they compute.
func TestConformance(t *testing.T) {
	storetest.RunInLanes(t, pgtest.Recycler(t), pgtest.Recycler(t), pgtest.Recycler(t))
}
