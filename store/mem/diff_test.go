package mem_test

import (
	"testing"

	"github.com/tickwork/tickwork/store/storetest"
)

// TestDifferentialMemVsMem checks the differential harness itself and the
// determinism of mem: two stores fed the same operations must agree.
func TestDifferentialMemVsMem(t *testing.T) {
	storetest.RunDifferential(t, open, open, 100)
}
