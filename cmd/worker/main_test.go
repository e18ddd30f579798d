package main

import (
	"testing"

	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestMain checks for leaked goroutines (goleak, through pgtest.Main) and
// removes the PostgreSQL container if a test started one.
func TestMain(m *testing.M) { pgtest.Main(m) }
