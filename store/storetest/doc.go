// Package storetest is the conformance suite every store.Store
// implementation must pass, so that store/mem and store/pg produce the same
// results and the same rows for the same operations (store/SEMANTICS.md).
//
// Run checks every operation and documented edge against one store at a
// time, on a fresh store per subtest, with time controlled by a Clock the
// suite owns. RunDifferential applies random operation sequences to two
// stores side by side and requires identical results and identical state
// after every step.
//
// Only the notification checks wait in real time, because PostgreSQL
// delivers notifications asynchronously; they wait with a context deadline
// (NotifyWait), never with a sleep.
package storetest
