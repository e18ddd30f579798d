package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// urlInText is a URL inside free text: a scheme, "://" and everything up
// to white space, a quote, an angle bracket or a backslash.
var urlInText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>\\]+`)

// pairInText is a key=value or key: value pair inside free text, the key
// perhaps quoted (as in JSON), the value a quoted string or a bare word.
var pairInText = regexp.MustCompile(`(["']?)([A-Za-z_][A-Za-z0-9_.-]*)(["']?\s*[=:]\s*)("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|[^\s,;&"'()<>\[\]{}]+)`)

// schemeCredential is the credential of an HTTP Authorization value.
var schemeCredential = regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)([A-Za-z0-9._~+/=-]{8,})`)

// Text returns s with what the package's rule calls a secret hidden: the
// credentials of every URL in it, the value of every key=value or
// key: value pair whose key is secret by name, and the credential after
// Bearer or Basic.
func Text(s string) string {
	if strings.Contains(s, "://") {
		s = urlInText.ReplaceAllStringFunc(s, func(m string) string {
			// Punctuation after a URL in a sentence is not part of it.
			trimmed := strings.TrimRight(m, ":.,;)]}")
			return URL(trimmed) + m[len(trimmed):]
		})
	}
	s = schemeCredential.ReplaceAllString(s, "${1}${2}"+Mask)
	return redactPairs(s)
}

// redactPairs masks the value of every pair in s whose key is secret. The
// value of a pair with a harmless key is read again, since it may hold a
// pair of its own (dial: password=...).
func redactPairs(s string) string {
	var b strings.Builder
	for {
		m := pairInText.FindStringSubmatchIndex(s)
		if m == nil {
			b.WriteString(s)
			return b.String()
		}
		key, value := s[m[4]:m[5]], s[m[8]:m[9]]
		if !Name(key) || value == Mask {
			b.WriteString(s[:m[5]])
			s = s[m[5]:]
			continue
		}
		b.WriteString(s[:m[8]] + maskValue(value))
		s = s[m[9]:]
	}
}

// maskValue hides a value, keeping the quotes around it.
func maskValue(v string) string {
	if v != "" && (v[0] == '"' || v[0] == '\'') {
		return string(v[0]) + Mask + string(v[0])
	}
	return Mask
}

// shownParams are the query parameters whose values are shown: libpq's
// connection settings that carry no secret, which a reader needs to tell
// one connection from another.
var shownParams = setOf("sslmode", "connect_timeout", "application_name", "target_session_attrs",
	"load_balance_hosts", "search_path", "pool_max_conns", "pool_min_conns", "statement_cache_capacity",
	"default_query_exec_mode")

// URL returns raw with its credentials hidden: the user information
// (user and password), every query value but those of the connection
// settings in shownParams, and the fragment, keeping the scheme, host,
// path and parameter names. A URL whose parts are not certain (it does not
// parse, or an "@" after the user information says a password with a "/"
// or "?" was cut there) is hidden after its scheme.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || strings.Contains(u.Host, "@") || strings.Contains(u.EscapedPath(), "@") {
		if scheme, _, ok := strings.Cut(raw, "://"); ok && !strings.ContainsAny(scheme, "@:/") {
			return scheme + "://" + Mask
		}
		return Mask
	}
	if u.User != nil {
		u.User = url.User(Mask)
	}
	u.RawQuery = redactQuery(u.RawQuery)
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// redactQuery masks the value of every parameter of a raw query but those
// in shownParams, and the whole of a parameter that has no value (it may
// be a token written as a name), keeping the rest as written.
func redactQuery(rawQuery string) string {
	if rawQuery == "" {
		return ""
	}
	pairs := strings.Split(rawQuery, "&")
	for i, pair := range pairs {
		rawKey, _, hasValue := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(rawKey)
		switch {
		case err == nil && hasValue && shownParams[key]:
		case hasValue:
			pairs[i] = rawKey + "=" + Mask
		default:
			pairs[i] = Mask
		}
	}
	return strings.Join(pairs, "&")
}
