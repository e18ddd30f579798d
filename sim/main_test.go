package sim

import (
	"runtime/debug"
	"testing"

	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// The simulator is one logical thread (coroutines only hand control to each
// other); pgtest.Main checks, like goleak.VerifyTestMain, that no goroutine
// outlives the tests, including PostgreSQL stores' pools.
func TestMain(m *testing.M) {
	debug.SetGCPercent(GCPercent)
	pgtest.Main(m)
}
