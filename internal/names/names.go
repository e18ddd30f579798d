// Package names says what may name a queue or a schedule and what may be a
// job's unique key, and how an error quotes a value it refuses. The
// stores, the worker, the CLI and the console check names with the same
// code, so that all of them refuse the same input with the same error.
// It imports nothing of tickwork: package store re-exports ErrInvalid and
// the limits a user reads.
package names

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrInvalid is the error every refused input wraps; store.ErrInvalid is
// this value.
var ErrInvalid = errors.New("invalid input")

// MaxNameBytes is the longest queue or schedule name (store.MaxQueueNameBytes).
const MaxNameBytes = 128

// MaxKeyBytes is the longest unique key (store.MaxUniqueKeyBytes).
const MaxKeyBytes = 256

// Valid reports whether name may name a queue or a schedule (see Check).
func Valid(name string) bool { return Check("queue", name) == nil }

// Check returns nil if name may name a queue or a schedule: 1 to
// MaxNameBytes bytes of valid UTF-8 without NUL, which PostgreSQL's text
// type cannot hold. Otherwise it returns an error wrapping ErrInvalid that
// says why, calls the name a what name and quotes at most its start.
func Check(what, name string) error {
	var why string
	switch {
	case name == "" || len(name) > MaxNameBytes:
		why = fmt.Sprintf("must be 1 to %d bytes", MaxNameBytes)
	case !utf8.ValidString(name):
		why = "is not valid UTF-8"
	case strings.IndexByte(name, 0) >= 0:
		why = "contains a NUL byte"
	default:
		return nil
	}
	return fmt.Errorf("%s name %s %s: %w", what, Quote(name), why, ErrInvalid)
}

// CheckKey returns an error wrapping ErrInvalid, saying why, unless key
// may be a job's unique key: at most MaxKeyBytes bytes of valid UTF-8
// without NUL ("" is no key, and may).
func CheckKey(key string) error {
	var why string
	switch {
	case len(key) > MaxKeyBytes:
		why = fmt.Sprintf("is longer than %d bytes", MaxKeyBytes)
	case !utf8.ValidString(key) || strings.IndexByte(key, 0) >= 0:
		why = "is not valid UTF-8 without NUL"
	default:
		return nil
	}
	return fmt.Errorf("unique key %s %s: %w", Quote(key), why, ErrInvalid)
}

// quoteLimit is how much of a bad value an error message quotes.
const quoteLimit = 64

// Quote quotes s like %q, cut to its first quoteLimit bytes with its
// length added when longer: an error must say which value it refuses
// without echoing ten thousand bytes of it.
func Quote(s string) string {
	if len(s) <= quoteLimit {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:quoteLimit], len(s))
}
