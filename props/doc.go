// Package props checks the promises of tickwork (SPEC 10) on a recorded
// History: the rows every store transaction committed plus what the driver
// saw happen (executions, crashes, shutdowns, leader duties). It knows
// nothing of the worker, the simulator or the stores, so a history from the
// simulator and one from a live PostgreSQL run are checked by the same code.
//
// Safety properties are checked event by event (Checker.Step) so a run can
// stop at the first violating event; liveness at the end (Checker.Finish).
package props
