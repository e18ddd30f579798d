package mutant

// The planted bugs of sequences (store.Sequence).
const (
	// SequenceRunningUnheld: the in-memory store forgets that a running
	// job holds its sequence, so the next job of the key starts beside it.
	SequenceRunningUnheld = "sequence-running-unheld"
	// SequenceByID: the in-memory store orders a sequence by job id
	// instead of enqueue order; ids made in one store millisecond come in
	// any order.
	SequenceByID = "sequence-by-id"
	// SequenceHaltIgnored: the in-memory store lets a job that failed for
	// good pass its sequence on, as if it continued on failure.
	SequenceHaltIgnored = "sequence-halt-ignored"
	// PGSequenceSkipsLocked: store/pg's head check ignores the available
	// jobs of the queue before the job it found, reasoning that the
	// lookup would have found them first; but the lookup skips the jobs
	// other transactions lock (SKIP LOCKED), so while one reservation
	// takes a sequence's first job, another takes its second.
	PGSequenceSkipsLocked = "pg-sequence-skips-locked"
)
