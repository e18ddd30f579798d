package pg_test

import (
	"testing"

	"github.com/tickwork/tickwork/store/pg/pgtest"
	"github.com/tickwork/tickwork/store/storetest"
)

// TestConformance runs the suite store/mem passes, with the suite's clock
// as the store's now, on one schema emptied between cases.
func TestConformance(t *testing.T) {
	storetest.Run(t, pgtest.Recycler(t))
}
