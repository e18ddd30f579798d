package pg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tickwork/tickwork/store"
)

// classify wraps err with the store sentinel a caller can act on:
// ErrUnavailable for failures worth retrying, ErrConflict for a duplicate
// key, ErrInvalid for data PostgreSQL rejects. A missing schema or table is
// reported with where the store points. Errors that already carry a
// sentinel, and cancellations, pass through.
func (s *Store) classify(err error) error { return classifyAt(err, s.target) }

// classifyAt is classify for an error of the server target describes.
func classifyAt(err error, target string) error {
	if err == nil {
		return nil
	}
	for _, known := range []error{store.ErrNotFound, store.ErrFenced, store.ErrConflict, store.ErrUnavailable, store.ErrInvalid} {
		if errors.Is(err, known) {
			return err
		}
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "23505": // unique_violation
			return fmt.Errorf("%w: %w", store.ErrConflict, err)
		case pgErr.Code == "23503": // foreign_key_violation: the row referred to is gone
			return fmt.Errorf("%w: %w", store.ErrNotFound, err)
		case pgErr.Code == "3F000" || pgErr.Code == "42P01": // invalid_schema_name, undefined_table
			return fmt.Errorf("%w at %s (call Migrate): %w", ErrNotMigrated, target, err)
		case transientCode(pgErr.Code):
			return fmt.Errorf("%w (%s): %w", store.ErrUnavailable, target, err)
		case strings.HasPrefix(pgErr.Code, "22"): // data_exception: a value PostgreSQL cannot store
			return fmt.Errorf("%w: %w", store.ErrInvalid, err)
		}
		return err
	}
	if connectionLost(err) {
		return fmt.Errorf("%w (%s): %w", store.ErrUnavailable, target, err)
	}
	return err
}

// connectError reports a failed connection attempt by op. The message
// names where the store points exactly once: classify adds it to the
// failures worth retrying, this adds it to the others (a wrong password, a
// database that does not exist).
func (s *Store) connectError(op string, err error) error { return connectErrorAt(op, err, s.target) }

// connectErrorAt is connectError for a connection to the server target
// describes.
func connectErrorAt(op string, err error, target string) error {
	err = classifyAt(err, target)
	if errors.Is(err, store.ErrUnavailable) {
		return fmt.Errorf("%s: cannot connect: %w", op, err)
	}
	return fmt.Errorf("%s: cannot connect to %s: %w", op, target, err)
}

// Retryable reports whether err, from a connection attempt or a statement,
// is a failure after which the same work may succeed if retried: the
// connection was lost or refused, or the server answered with a transient
// SQLSTATE (see transientCode). Every other answer of the server, such as
// a refused login, an unknown database or startup parameter, is final.
func Retryable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return transientCode(pgErr.Code)
	}
	return connectionLost(err)
}

// transientCode reports the SQLSTATEs after which the same work may succeed
// if retried: lost connections, a server shutting down or starting,
// serialization failures, deadlocks, exhausted connection slots and a node
// that no longer takes writes (retried on a new connection: see
// dropIfReadOnly).
func transientCode(code string) bool {
	switch code {
	case "40001", "40P01", // serialization_failure, deadlock_detected
		readOnlyCode,
		"57P01", "57P02", "57P03", // admin_shutdown, crash_shutdown, cannot_connect_now
		"53300": // too_many_connections
		return true
	}
	return strings.HasPrefix(code, "08") // connection_exception
}

// connectionLost reports errors raised on the client side because the
// connection failed, as opposed to the caller's own cancellation.
func connectionLost(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) ||
		pgconn.SafeToRetry(err) ||
		errors.Is(err, pgconn.ErrConnClosed) ||
		errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
