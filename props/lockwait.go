package props

// LockWait is a round trip the database held on locks of other
// transactions, as an interleaving controller records it (a Wait event of
// store/pg/interleave): the connection, the statement the server held (of
// a pipelined batch, the one that reached the lock) and the connections it
// waited on.
type LockWait struct {
	Conn      string
	Statement string
	On        []string
}

// ReservationWaits returns the waits of reservations. Workers must not
// block each other on the job path: a statement that reserves jobs skips
// the rows other transactions hold (FOR UPDATE SKIP LOCKED) instead of
// waiting for them, so any wait of one is a violation, whoever it waited
// on. reserves tells a reserving statement; the recording side knows its
// store's SQL. Waits of other statements of the same round trip are not
// reservations: the job pass's liveness check may rightly wait for a leader
// declaring its worker dead, and a limited queue's limit lock for another
// reservation counting the queue's running jobs (store/pg/limit.go).
func ReservationWaits(waits []LockWait, reserves func(statement string) bool) []LockWait {
	var bad []LockWait
	for _, w := range waits {
		if reserves(w.Statement) {
			bad = append(bad, w)
		}
	}
	return bad
}
