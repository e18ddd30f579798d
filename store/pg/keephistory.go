package pg

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// A job pass of a store whose queues all keep history completes with
// completeKeepingSQL or completeOutputKeepingSQL: the completion
// statements without their deleting part (completeDelete), which costs
// every execution even when no queue needs it, since a generic plan's
// executor starts all its nodes (BenchmarkCompletionCost: about a tenth
// more of the server's processor time per job). Each refuses, with
// an error that aborts the pass, when its own snapshot holds a queue
// without history: the full statement, with that snapshot, would have
// deleted nothing otherwise, so a statement that does not refuse does
// exactly what the full one does. RunJobPass then sets noHistory and
// sends the pass again with the full statements, as it does from then on.

// completeKeepingSQL is completeSQL for a store whose queues all keep
// history: it refuses (noQueueWithoutHistory) when one does not.
const completeKeepingSQL = `WITH done AS (` + completeSet + completedReturning + `)
	SELECT id FROM done WHERE ` + noQueueWithoutHistory + ` AND ` + childrenReleased

// completeOutputKeepingSQL is completeOutputSQL as completeKeepingSQL is
// completeSQL.
const completeOutputKeepingSQL = `WITH done AS (` + completeOutputSet + completedReturning + `)
	SELECT id FROM done WHERE ` + noQueueWithoutHistory + ` AND ` + childrenReleased

// noQueueWithoutHistory is true when no queue keeps no history, and fails
// the statement otherwise: SQL has no statement to raise an error, so it
// casts a text naming the queue to uuid, a cast the planner cannot fold
// since the text is read from the row. It probes queues_no_history_idx
// once per execution (a one-time filter), as completeDelete does.
const noQueueWithoutHistory = `(SELECT ('queue ' || name || '` + historyRefusal + `')::uuid
		FROM {schema}.queues WHERE history = 'none' LIMIT 1) IS NULL`

// historyRefusal marks noQueueWithoutHistory's error, for refusedHistory.
const historyRefusal = ` keeps no history: completion refused without its deleting part`

// refusedHistory reports whether err is noQueueWithoutHistory's refusal.
func refusedHistory(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "22P02" && strings.Contains(pgErr.Message, historyRefusal)
}
