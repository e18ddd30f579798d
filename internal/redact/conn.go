package redact

import "strings"

// notShown replaces a connection string whose structure is not certain
// enough to say where a password would be.
const notShown = "(not shown: it does not parse)"

// ConnString returns a PostgreSQL connection string, a URL or libpq's
// key=value settings, with its credentials hidden as URL and the rule's
// names say. Unlike Text, which hides what it recognises in prose, it
// shows nothing of a string it cannot read as one or the other.
func ConnString(raw string) string {
	if strings.Contains(raw, "://") {
		if u := URL(raw); !strings.HasSuffix(u, "://"+Mask) && u != Mask {
			return u
		}
		return notShown
	}
	s, ok := redactSettings(raw)
	if !ok {
		return notShown
	}
	return s
}

// redactSettings masks the secret values of key=value settings, read as
// libpq reads them: a value is a bare word ending at white space or a
// single-quoted string, and a backslash escapes the next character in
// both. ok is false when s is not such settings.
func redactSettings(s string) (string, bool) {
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
		case !Name(key):
			b.WriteString(s[i:j])
		case quoted:
			b.WriteString("'" + Mask + "'")
		default:
			b.WriteString(Mask)
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
