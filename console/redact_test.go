package console

import (
	"strings"
	"testing"
)

func TestRedactTextHidesURLCredentials(t *testing.T) {
	cases := map[string]string{
		`POST https://bot:hunter2@hooks.example.com/x?sig=abc123&v=1: 500`: `POST https://xxxxx@hooks.example.com/x?sig=xxxxx&v=xxxxx: 500`,
		`Post "https://TOKEN123@h.example/p": dial tcp: refused`:           `Post "https://xxxxx@h.example/p": dial tcp: refused`,
		`no url here`:                    `no url here`,
		`http://h.example/p#frag-secret`: `http://h.example/p`,
	}
	for in, want := range cases {
		if got := redactText(in); got != want {
			t.Errorf("redactText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPrettyJSONHidesSecrets(t *testing.T) {
	in := `{"url":"https://u:pw-secret@h.example/hook?token=tok-secret","headers":{"X-Thing":"hdr-secret"},"body":{"n":1,"api_key":"key-secret"},"list":["a"]}`
	got := prettyJSON([]byte(in))
	for _, secret := range []string{"pw-secret", "tok-secret", "hdr-secret", "key-secret"} {
		if strings.Contains(got, secret) {
			t.Errorf("%s shown in:\n%s", secret, got)
		}
	}
	for _, kept := range []string{`"n": 1`, "h.example/hook", `"a"`} {
		if !strings.Contains(got, kept) {
			t.Errorf("%s lost from:\n%s", kept, got)
		}
	}
	if got := prettyJSON([]byte(`not json https://a:b@h/`)); strings.Contains(got, "a:b") {
		t.Errorf("undecodable payload shown with its password: %s", got)
	}
}
