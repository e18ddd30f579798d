package pg

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tickwork/tickwork/internal/mutant"
)

// readOnlyCode is SQLSTATE read_only_sql_transaction: a write reached a
// node that does not take writes (a standby, or a primary being demoted
// by a failover).
const readOnlyCode = "25006"

// readOnly reports whether err is the server's refusal of a write because
// the session is read-only.
func readOnly(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == readOnlyCode
}

// dropIfReadOnly closes conn when err says it sits on a read-only node, so
// that the pool discards it instead of handing it out again: the next
// connection is made afresh, and target_session_attrs=read-write in a
// multi-host URL then picks the node that is primary now. Without this a
// pool kept failing every tick on the demoted node. It must run while the
// caller still holds conn, before it goes back to the pool.
func dropIfReadOnly(conn *pgx.Conn, err error) {
	if mutant.On(mutant.PGReadOnlyKept) {
		return
	}
	if readOnly(err) {
		_ = conn.Close(context.Background())
	}
}

// sendBatch sends b on a connection of the pool and reads its answers with
// read, which must close them; like InTx, it drops a connection that sits
// on a read-only node.
func (s *Store) sendBatch(ctx context.Context, b *pgx.Batch, read func(pgx.BatchResults) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	err = read(conn.SendBatch(ctx, b))
	dropIfReadOnly(conn.Conn(), err)
	return err
}
