package main

import (
	"net/url"
	"strings"
)

// Secrets are kept out of output by the structure of what holds them (the
// password field of a URL, the value of a password= setting, the user info
// and query of a webhook URL), never by searching output for their text:
// that mangles every line where a short password happens to occur and
// misses every spelling of the secret but the one searched for.

// mask stands for a redacted value.
const mask = "xxxxx"

// redactURL returns a PostgreSQL connection string (URL or key=value
// settings) with its password and sslpassword values replaced by mask, or
// a placeholder when the string's structure is not certain enough to say
// where a password would be: then nothing of it may be shown.
func redactURL(raw string) string {
	redact := redactKeywordValues
	if strings.HasPrefix(raw, "postgres://") || strings.HasPrefix(raw, "postgresql://") {
		redact = redactConnURL
	}
	redacted, ok := redact(raw)
	if !ok {
		return "(not shown: it does not parse)"
	}
	return redacted
}

func isConnSecret(key string) bool { return key == "password" || key == "sslpassword" }

func redactConnURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || strings.Contains(u.Host, "@") ||
		strings.Contains(u.EscapedPath(), "@") || strings.Contains(u.RawQuery, "@") {
		// An '@' after the user info means a password with a '/' or '?'
		// in it was cut there: the parts are not what they seem.
		return "", false
	}
	u.RawQuery = redactQuery(u.RawQuery, isConnSecret)
	return u.Redacted(), true
}

// redactQuery masks the value of every parameter of a raw query whose
// (unescaped) key secret says holds a secret, and the whole of such a
// parameter that has no value, keeping the rest as written.
func redactQuery(rawQuery string, secret func(key string) bool) string {
	if rawQuery == "" {
		return ""
	}
	pairs := strings.Split(rawQuery, "&")
	for i, pair := range pairs {
		rawKey, _, hasValue := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(rawKey)
		switch {
		case err == nil && !secret(key):
		case hasValue:
			pairs[i] = rawKey + "=" + mask
		default:
			pairs[i] = mask
		}
	}
	return strings.Join(pairs, "&")
}

// redactKeywordValues masks the password values of key=value settings,
// read as libpq reads them: a value is a bare word ending at white space or
// a single-quoted string, and a backslash escapes the next character in
// both.
func redactKeywordValues(s string) (string, bool) {
	var b strings.Builder
	i := 0
	for {
		j := skipSpace(s, i)
		b.WriteString(s[i:j])
		if j == len(s) {
			return b.String(), true
		}
		i = j
		for j < len(s) && s[j] != '=' && !isSpace(s[j]) {
			j++
		}
		key := s[i:j]
		j = skipSpace(s, j)
		if key == "" || j == len(s) || s[j] != '=' {
			return "", false
		}
		j = skipSpace(s, j+1)
		b.WriteString(s[i:j])
		i = j
		j, quoted, ok := valueEnd(s, i)
		if !ok {
			return "", false
		}
		switch {
		case !isConnSecret(key):
			b.WriteString(s[i:j])
		case quoted:
			b.WriteString("'" + mask + "'")
		default:
			b.WriteString(mask)
		}
		i = j
	}
}

// valueEnd returns the end of the value that starts at s[i]; ok is false
// for a quoted value with no closing quote.
func valueEnd(s string, i int) (end int, quoted, ok bool) {
	quoted = i < len(s) && s[i] == '\''
	j := i
	if quoted {
		j++
	}
	for ; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\':
			j++
		case quoted && c == '\'':
			return j + 1, true, true
		case !quoted && isSpace(c):
			return j, false, true
		}
	}
	return len(s), quoted, !quoted
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// redactWebhookURL names a webhook target for a log line or a failure
// reason: scheme, host and path, with the user info and every query value
// masked and the fragment dropped. A URL that does not parse is not shown.
func redactWebhookURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		return "(webhook url not shown: it does not parse)"
	}
	if u.User != nil {
		u.User = url.User(mask)
	}
	u.RawQuery = redactQuery(u.RawQuery, func(string) bool { return true })
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
