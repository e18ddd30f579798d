package sim

import (
	"testing"

	"go.uber.org/goleak"
)

// The simulator is single-goroutine by design; goleak proves it stays so.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
