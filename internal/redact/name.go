package redact

import (
	"strings"
	"unicode"
)

// secretWords are the families of the rule, one word each.
var secretWords = setOf(
	"pass", "passwd", "password", "passphrase", "passcode", "pwd", "pw",
	"secret",
	"token", "jwt", "bearer",
	"key",
	"cred", "credential",
	"auth", "oauth", "authn", "authz", "authorization", "authentication",
	"session", "sessionid", "sid",
	"cookie",
	"signature", "sig",
)

// secretSuffixes are the secret words long enough that a word ending in
// one is that secret behind a qualifier (dbpassword, accesstoken), never
// an unrelated word.
var secretSuffixes = []string{"password", "passwd", "passphrase", "secret", "token", "credential", "cookie", "signature", "sessionid", "sessid"}

// keyQualifiers are the words that make a key a credential when written
// together with it (apikey, privatekey): "key" alone is too short to be a
// suffix (monkey, turkey).
var keyQualifiers = setOf("api", "access", "private", "secret", "signing", "client", "master",
	"encryption", "auth", "session", "license", "app", "shared", "hmac", "ssh")

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// Name reports whether a field, header, parameter, setting or attribute
// called name holds a credential, by the package's rule.
func Name(name string) bool {
	for _, w := range words(name) {
		if secretWord(w) || (len(w) > 3 && strings.HasSuffix(w, "s") && secretWord(w[:len(w)-1])) {
			return true
		}
	}
	return false
}

func secretWord(w string) bool {
	if secretWords[w] {
		return true
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	q, ok := strings.CutSuffix(w, "key")
	return ok && keyQualifiers[q]
}

// words splits a name into its lower-case segments: at every rune that is
// not a letter, at a change from lower case to upper case (apiKey), and
// before the last capital of a run followed by lower case (HTTPHeader is
// http, header). Digits end a word: oauth2 is oauth.
func words(name string) []string {
	var out []string
	rs := []rune(name)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) {
			flush(i)
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	return out
}
