package pg

import (
	"net/url"
	"strings"
)

// WithParam returns conn, a postgres:// URL or a key=value connection
// string as Open takes, with the setting key (a connection setting or a
// run-time parameter such as application_name) set to value, whatever
// characters value holds. The rest of conn is kept byte for byte.
//
// A URL loses its earlier key= query parameters and gets key=value
// appended, percent-encoded the way libpq and pgx decode it. A key=value
// string gets key=value appended, the value bare if it is a plain word
// (ASCII letters, digits, underscores) and otherwise quoted and escaped;
// libpq and pgx let the last setting of a key win, so it overrides an
// earlier one.
func WithParam(conn, key, value string) string {
	if strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://") {
		return withURLParam(conn, key, value)
	}
	setting := key + "=" + kvQuote(value)
	if strings.TrimSpace(conn) == "" {
		return setting
	}
	return conn + " " + setting
}

// kvQuote spells value for a key=value connection string. Quoting only
// what needs more than a bare word keeps simple settings as people write
// them (synchronous_commit=off).
func kvQuote(value string) string {
	if value != "" && strings.Trim(value, wordChars) == "" {
		return value
	}
	return "'" + kvEscaper.Replace(value) + "'"
}

const wordChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"

// kvEscaper escapes a value for single quotes in a key=value connection
// string, where a backslash escapes the next character.
var kvEscaper = strings.NewReplacer(`\`, `\\`, `'`, `\'`)

// withURLParam edits the raw query rather than re-encoding it with
// url.Values: Go's encoding writes a space as '+', which libpq and pgx
// read as a plus sign.
func withURLParam(conn, key, value string) string {
	head, query := conn, ""
	if i := queryStart(conn); i >= 0 {
		head, query = conn[:i], conn[i+1:]
	}
	var kept []string
	for pair := range strings.SplitSeq(query, "&") {
		rawKey, _, _ := strings.Cut(pair, "=")
		if k, err := url.PathUnescape(rawKey); pair == "" || (err == nil && k == key) {
			continue
		}
		kept = append(kept, pair)
	}
	kept = append(kept, uriEscape(key)+"="+uriEscape(value))
	return head + "?" + strings.Join(kept, "&")
}

// queryStart returns the index of the '?' that starts the query of a
// connection URL, or -1. Like libpq, it takes an '@' before the first '/'
// to end the user and password, which may hold a '?'.
func queryStart(conn string) int {
	from := strings.Index(conn, "://") + len("://")
	if i := strings.IndexAny(conn[from:], "@/"); i >= 0 && conn[from+i] == '@' {
		from += i + 1
	}
	if i := strings.IndexByte(conn[from:], '?'); i >= 0 {
		return from + i
	}
	return -1
}

// uriEscape percent-encodes s for a connection URL's query: every byte
// QueryEscape leaves alone is safe there, and a space must be %20.
func uriEscape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}
