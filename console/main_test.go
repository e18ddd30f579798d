package console

import (
	"testing"

	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// pgtest.Main finds the test database and, like goleak.VerifyTestMain,
// fails when a goroutine (a server's, the browser's) outlives the tests.
func TestMain(m *testing.M) { pgtest.Main(m) }
