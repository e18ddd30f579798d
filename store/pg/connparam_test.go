package pg_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tickwork/tickwork/store/pg"
)

func TestWithParamURL(t *testing.T) {
	for conn, want := range map[string]string{
		"postgres://u@h:5432/d":                 "postgres://u@h:5432/d?application_name=a%20b%26c",
		"postgres://u@h:5432/d?sslmode=disable": "postgres://u@h:5432/d?sslmode=disable&application_name=a%20b%26c",
		// The other parameters stay as written, even in spellings Go's
		// url.Values would change; earlier settings of the key go.
		"postgresql://u:p%3F@h/d?options=-c%20x%3Dy&application_name=old&a%70plication_name=older&sslmode=disable": "postgresql://u:p%3F@h/d?options=-c%20x%3Dy&sslmode=disable&application_name=a%20b%26c",
	} {
		got := pg.WithParam(conn, "application_name", "a b&c")
		if got != want {
			t.Errorf("WithParam(%q)\n got %q\nwant %q", conn, got, want)
		}
		u, err := url.Parse(got)
		if err != nil || u.Query().Get("application_name") != "a b&c" {
			t.Errorf("net/url reads %q as %v, %v", got, u, err)
		}
	}
}

func TestWithParamKeyValue(t *testing.T) {
	if got := pg.WithParam("host=h dbname=d", "application_name", "chaos-s-w1"); got != "host=h dbname=d application_name='chaos-s-w1'" {
		t.Fatalf("got %q", got)
	}
	if got := pg.WithParam("host=h dbname=d", "synchronous_commit", "off"); got != "host=h dbname=d synchronous_commit=off" {
		t.Fatalf("a plain word: got %q", got)
	}
	if got := pg.WithParam("", "application_name", ""); got != "application_name=''" {
		t.Fatalf("empty string and value: got %q", got)
	}
}

// Whatever the value, pgx reads back exactly what was set, in either form,
// and keeps the rest of the connection string.
func TestWithParamRoundTrip(t *testing.T) {
	for _, conn := range []string{
		"postgres://u:p%3F%40@h:5432/d?sslmode=disable&application_name=old",
		"postgres://u:p?x@h:5432/d?sslmode=disable&application_name=old",
		"host=h port=5432 user=u password='p?x' dbname=d sslmode=disable application_name=old",
	} {
		for _, v := range []string{"plain", "Plain_1", "é", "it's", `back\slash`, "sp ace", "a+b", "x=y&z", `\'`, "%20", ""} {
			cfg, err := pgconn.ParseConfig(pg.WithParam(conn, "application_name", v))
			if err != nil {
				t.Fatalf("%q with %q: %v", conn, v, err)
			}
			if got := cfg.RuntimeParams["application_name"]; got != v {
				t.Errorf("%q with %q: pgx reads %q", conn, v, got)
			}
			if cfg.Host != "h" || cfg.Port != 5432 || cfg.User != "u" || cfg.Database != "d" || !strings.HasPrefix(cfg.Password, "p?") {
				t.Errorf("%q with %q: pgx reads %+v", conn, v, cfg)
			}
		}
	}
}
