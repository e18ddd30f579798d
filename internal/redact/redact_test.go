package redact

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestNameCoversTheFamilies(t *testing.T) {
	secret := []string{
		// pass, pwd
		"password", "Password", "PASSWORD", "pass", "passwd", "pwd", "db_pwd", "passphrase", "passcode",
		"dbPassword", "DB_PASSWORD", "sslpassword", "user-pass", "pw", "passwords",
		// secret
		"secret", "client_secret", "clientSecret", "webhook.secret", "secrets", "jwtSecret",
		// token, jwt, bearer
		"token", "api_token", "accessToken", "refresh_token", "RefreshToken", "id_token", "csrftoken", "jwt", "JWT", "bearer",
		// key
		"key", "api_key", "apiKey", "APIKEY", "X-Api-Key", "x-api-key", "privateKey", "private_key", "secretKey",
		"accesskey", "AWS_SECRET_ACCESS_KEY", "signingKey", "sshkey", "keys",
		// cred
		"creds", "cred", "credentials", "Credential", "gcpCredentials",
		// auth
		"auth", "Authorization", "authorization", "Proxy-Authorization", "x-auth", "oauth", "oauth2", "authn", "basic_auth",
		// session
		"session", "sessionid", "sessionId", "SESSION_ID", "sid", "session_token", "PHPSESSID", "JSESSIONID", "connect.sid",
		// cookie
		"cookie", "Cookie", "Set-Cookie", "cookies",
		// signature
		"signature", "sig", "X-Hub-Signature-256", "webhookSignature",
	}
	for _, n := range secret {
		if !Name(n) {
			t.Errorf("Name(%q) = false, want true", n)
		}
	}
	shown := []string{
		"keyboard", "monkey", "turkey", "hockey", "author", "authority", "authors", "passenger", "passport",
		"bypass", "compass", "tokenizer", "credit", "credit_limit", "signed", "signed_at", "design", "url",
		"DATABASE_URL", "dsn", "host", "user", "username", "email", "n", "id", "queue", "body", "message",
		"keyword", "sidebar", "cookbook", "passive", "skip", "sigma", "secretary", "description", "signup",
	}
	for _, n := range shown {
		if Name(n) {
			t.Errorf("Name(%q) = true, want false", n)
		}
	}
}

func TestTextHidesSecretsByValue(t *testing.T) {
	cases := map[string]string{
		`POST https://bot:hunter2@hooks.example.com/x?sig=abc123&v=1: 500`: `POST https://xxxxx@hooks.example.com/x?sig=xxxxx&v=xxxxx: 500`,
		`Post "https://TOKEN123@h.example/p": dial tcp: refused`:           `Post "https://xxxxx@h.example/p": dial tcp: refused`,
		`no url here`: `no url here`,
		`https://u:p@example.com/a/b?token=t&flag&x=1#frag`:    `https://xxxxx@example.com/a/b?token=xxxxx&xxxxx&x=xxxxx`,
		`http://h.example/p#frag-secret`:                       `http://h.example/p`,
		`host=h user=u password=hunter2 dbname=d`:              `host=h user=u password=xxxxx dbname=d`,
		`host=h password='hunter2 x' dbname=d`:                 `host=h password='xxxxx' dbname=d`,
		`Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc`:   `Authorization: xxxxx xxxxx`,
		`sent Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc to h`:        `sent Bearer xxxxx to h`,
		`{"pwd":"hunter2","n":1}`:                              `{"pwd":"xxxxx","n":1}`,
		`api_key=k123&page=2`:                                  `api_key=xxxxx&page=2`,
		`X-Api-Key: k123`:                                      `X-Api-Key: xxxxx`,
		`postgres://u:hunter2@db:5432/app?sslmode=require`:     `postgres://xxxxx@db:5432/app?sslmode=require`,
		`postgres://u@db/app?password=hunter2&sslmode=disable`: `postgres://xxxxx@db/app?password=xxxxx&sslmode=disable`,
		`postgres://u:12/hunter2@h/d`:                          `postgres://xxxxx`,
		`monkey=banana keyboard: qwerty author=ann`:            `monkey=banana keyboard: qwerty author=ann`,
		`job failed: the token expired at 12:00`:               `job failed: the token expired at 12:00`,
		`dial tcp 10.0.0.1:5432: connect: connection refused`:  `dial tcp 10.0.0.1:5432: connect: connection refused`,
		`refresh_token="r-123" sessionid=abc; path=/`:          `refresh_token="xxxxx" sessionid=xxxxx; path=/`,
		`DATABASE_URL=postgres://app:s3cret@db.internal/app`:   `DATABASE_URL=postgres://xxxxx@db.internal/app`,
	}
	for in, want := range cases {
		if got := Text(in); got != want {
			t.Errorf("Text(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}

func TestConnStringShowsNothingItCannotRead(t *testing.T) {
	cases := map[string]string{
		"postgres://u:hunter2@h:5432/d?sslmode=disable":     "postgres://xxxxx@h:5432/d?sslmode=disable",
		"postgres://u@h/d?sslmode=require&password=hunter2": "postgres://xxxxx@h/d?sslmode=require&password=xxxxx",
		"postgres://u@h/d?pass%77ord=hunter2&sslpassword=k": "postgres://xxxxx@h/d?pass%77ord=xxxxx&sslpassword=xxxxx",
		"host=h user=u password=hunter2 dbname=d":           "host=h user=u password=xxxxx dbname=d",
		"host=h password = 'hunter2 \\' x' dbname=d":        "host=h password = 'xxxxx' dbname=d",
		"postgres://h/d":              "postgres://h/d",
		"postgres://u:12/hunter2@h/d": notShown,
		"postgres//u:hunter2@h/d":     notShown,
		"host=h password='hunter2":    notShown,
		"postgres://u:hunter2@h:x/d":  notShown,
	}
	for in, want := range cases {
		if got := ConnString(in); got != want {
			t.Errorf("ConnString(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPrettyHidesSecretsInKeysAndValues(t *testing.T) {
	in := `{"url":"https://u:pw-secret@h.example/hook?token=tok-secret","headers":{"X-Thing":"hdr-secret"},
		"body":{"n":1,"api_key":"key-secret","pwd":"pwd-secret","jwt":"jwt-secret","creds":{"user":"cred-secret"},
		"dsn":"host=db password=dsn-secret","privateKey":"pk-secret","monkey":"banana","keyboard":"qwerty"},"list":["a"]}`
	got, cut := Pretty([]byte(in), 1<<20)
	if cut {
		t.Fatalf("a small document was cut:\n%s", got)
	}
	for _, secret := range []string{"pw-secret", "tok-secret", "hdr-secret", "key-secret", "pwd-secret", "jwt-secret", "cred-secret", "dsn-secret", "pk-secret"} {
		if strings.Contains(got, secret) {
			t.Errorf("%s shown in:\n%s", secret, got)
		}
	}
	for _, kept := range []string{`"n": 1`, "h.example/hook", `"a"`, `"banana"`, `"qwerty"`, "host=db"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%s lost from:\n%s", kept, got)
		}
	}
	if got, _ := Pretty([]byte(`not json https://a:b@h/`), 100); strings.Contains(got, "a:b") {
		t.Errorf("undecodable document shown with its password: %s", got)
	}
}

func TestPrettyIsBounded(t *testing.T) {
	const depth = 9990
	doc := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	got, cut := Pretty([]byte(doc), 64<<10)
	if !cut || len(got) > 64<<10 {
		t.Fatalf("a %d-deep document gave %d bytes (cut %v), want at most %d and cut", depth, len(got), cut, 64<<10)
	}
	for line := range strings.Lines(got) {
		if indent := len(line) - len(strings.TrimLeft(line, " ")); indent > 2*MaxIndentDepth {
			t.Fatalf("a line indented %d spaces, want at most %d", indent, 2*MaxIndentDepth)
		}
	}
	if got, cut := Pretty([]byte(`{"s":"ééééé"}`), 14); !cut || !strings.HasPrefix(`{`+"\n"+`  "s": "ééééé"`, got) {
		t.Errorf("cut inside a character or not cut: %q %v", got, cut)
	}
}

func TestCompactHidesAndKeepsJSON(t *testing.T) {
	got := string(Compact([]byte(`{"a": {"password": "p1"}, "u": "<https://x:y@h/>"}`)))
	if want := `{"a":{"password":"xxxxx"},"u":"<https://xxxxx@h/>"}`; got != want {
		t.Errorf("Compact = %s, want %s", got, want)
	}
}

func TestReplaceAttrHidesLogSecrets(t *testing.T) {
	var b bytes.Buffer
	log := slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{ReplaceAttr: ReplaceAttr}))
	log.Info("x", "api_token", "t-secret", "url", "https://u:u-secret@h/", "err", errors.New("dial: password=e-secret"), "n", 3)
	for _, s := range []string{"t-secret", "u-secret", "e-secret"} {
		if strings.Contains(b.String(), s) {
			t.Errorf("%s logged: %s", s, b.String())
		}
	}
	if !strings.Contains(b.String(), "n=3") {
		t.Errorf("n lost: %s", b.String())
	}
}

// An encrypted document, or an encrypted value of a metadata object, is
// shown as "encrypted": its ciphertext and its key's id are no reader's.
func TestEncryptedValuesShowAsEncrypted(t *testing.T) {
	sealed := `{"tickwork_encrypted": {"key": "k1", "nonce": "AAAA", "data": "c2VjcmV0"}}` // as jsonb spaces it
	if got, _ := Pretty([]byte(sealed), 1000); got != "encrypted" {
		t.Errorf("Pretty of an envelope = %q", got)
	}
	if got := string(Compact([]byte(sealed))); got != `"encrypted"` {
		t.Errorf("Compact of an envelope = %s", got)
	}
	meta := `{"region":"eu","who":` + sealed + `}`
	got, _ := Pretty([]byte(meta), 1000)
	if strings.Contains(got, "c2VjcmV0") || !strings.Contains(got, `"who": "encrypted"`) || !strings.Contains(got, `"region": "eu"`) {
		t.Errorf("Pretty of metadata with an encrypted value = %s", got)
	}
	if got := string(Compact([]byte(meta))); got != `{"region":"eu","who":"encrypted"}` {
		t.Errorf("Compact of metadata with an encrypted value = %s", got)
	}
}
