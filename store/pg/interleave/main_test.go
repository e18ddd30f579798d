package interleave_test

import (
	"testing"

	"github.com/tickwork/tickwork/store/pg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
