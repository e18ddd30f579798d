package pg

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tickwork/tickwork/store"
)

// ParseConfig parses conn, a postgres:// URL or a keyword/value connection
// string, as Open does. Its error wraps store.ErrInvalid and never quotes
// conn, not even in part: a string that does not parse cannot be reliably
// split into its password and the rest (postgres//u:secret@host is read as
// one keyword/value token), so the error says only what failed and which
// forms are accepted.
func ParseConfig(conn string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(conn)
	if err != nil {
		return nil, parseError(conn, err)
	}
	return cfg, nil
}

func parseError(conn string, err error) error {
	form := "keyword/value settings (host=... user=... dbname=...)"
	if isURL(conn) {
		form = "a postgres:// URL"
	} else if strings.HasPrefix(strings.ToLower(conn), "postgres") {
		form += "; a URL must begin with postgres:// or postgresql://"
	}
	why := "it is malformed"
	if reason := parseReason(err); reason != "" {
		why = reason
	}
	return fmt.Errorf("store/pg: the connection string (not shown) does not parse as %s: %s: %w", form, why, store.ErrInvalid)
}

// isURL reports whether pgx reads conn as a URL rather than as keyword/value
// settings.
func isURL(conn string) bool {
	return strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://")
}

// syntaxFailures are pgx's messages for a string it could not tokenize:
// their underlying errors quote pieces of the string (the text before a
// missing "=", a character of the user info), which may be the password.
var syntaxFailures = map[string]bool{
	"failed to parse as URL":           true,
	"failed to parse as keyword/value": true,
}

// parseReason is pgx's description of a parse failure without the
// connection string: its message (invalid port, unknown sslmode, ...) and,
// when the failure is about a setting's value rather than the string's
// syntax, the underlying error. It is "" when err is not pgx's parse error.
func parseReason(err error) string {
	var pce *pgconn.ParseConfigError
	if !errors.As(err, &pce) {
		return ""
	}
	bare := *pce
	bare.ConnString = ""
	text, prefix := bare.Error(), "cannot parse ``: "
	if !strings.HasPrefix(text, prefix) {
		return ""
	}
	msg := text[len(prefix):]
	inner := pce.Unwrap()
	if inner == nil {
		return msg
	}
	suffix := " (" + inner.Error() + ")"
	if !strings.HasSuffix(msg, suffix) {
		return ""
	}
	msg = strings.TrimSuffix(msg, suffix)
	if syntaxFailures[msg] {
		return msg
	}
	return msg + ": " + inner.Error()
}
