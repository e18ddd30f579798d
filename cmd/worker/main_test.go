package main

import (
	"testing"

	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestMain checks for leaked goroutines (goleak, through pgtest.Main),
// removes the PostgreSQL container if a test started one and the worker
// binary the end-to-end tests built.
func TestMain(m *testing.M) { pgtest.Main(m, removeBuiltWorker) }
