package console

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
)

// Secrets reach the jobs table in webhook URLs (user:password@, ?token=)
// and headers, and from there failure reasons that quote the URL. The
// console hides them when it renders; the rows keep what was stored.
//
// (cmd/worker gets its own redaction for log lines; the two could share one
// package once both exist.)

const hidden = "xxxxx"

var urlInText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>\\]+`)

// redactText hides the credentials of every URL in s: the user information
// and the query values.
func redactText(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlInText.ReplaceAllStringFunc(s, func(m string) string {
		// Punctuation after a URL in a sentence is not part of it.
		trimmed := strings.TrimRight(m, ":.,;)]}")
		return redactURL(trimmed) + m[len(trimmed):]
	})
}

// redactURL keeps a URL's scheme, host and path and hides the rest; a URL
// that does not parse is hidden after its scheme.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		scheme, _, _ := strings.Cut(raw, "://")
		return scheme + "://" + hidden
	}
	if u.User != nil {
		u.User = url.User(hidden)
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{hidden}
		}
		u.RawQuery = q.Encode()
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// secretKey matches JSON keys whose values are credentials.
var secretKey = regexp.MustCompile(`(?i)pass|secret|token|auth|key|signature|credential|cookie|headers`)

// prettyJSON indents a payload or metadata document for reading, with
// credentials hidden: values under secret-looking keys (every header value
// among them) and the secret parts of URLs in strings. A document that
// does not decode is shown as redacted text.
func prettyJSON(raw json.RawMessage) string {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return redactText(string(raw))
	}
	out, err := json.MarshalIndent(redactValue(v, false), "", "  ")
	if err != nil {
		return redactText(string(raw))
	}
	return string(out)
}

func redactValue(v any, secret bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = redactValue(e, secret || secretKey.MatchString(k))
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = redactValue(e, secret)
		}
		return x
	case string:
		if secret {
			return hidden
		}
		return redactText(x)
	}
	if secret && v != nil {
		return hidden
	}
	return v
}
