// Package tickwork is a job-queue worker for Go services whose queue lives in
// PostgreSQL, built so that a deterministic simulator can prove it right.
//
// The code lives in subpackages: clockrng (injected time and randomness),
// store (the database contract, with store/mem and store/pg), worker (the
// worker core and its production runner), sim and props (the simulator and
// the properties it checks), and the commands under cmd/. This package only
// holds repository-wide tests.
package tickwork
