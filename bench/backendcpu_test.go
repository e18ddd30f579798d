package main

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestWithAppName checks that the server's own parser (pgx's, as libpq's)
// reads the name back, spaces and all, from both forms of a connection.
func TestWithAppName(t *testing.T) {
	for _, conn := range []string{
		"postgres://postgres@127.0.0.1:5432/test?sslmode=disable",
		"postgresql://u@h/db",
		"host=127.0.0.1 user=postgres dbname=test",
	} {
		cfg, err := pgx.ParseConfig(withAppName(conn, "bench it's"))
		if err != nil {
			t.Fatalf("withAppName(%q): %v", conn, err)
		}
		if got := cfg.RuntimeParams["application_name"]; got != "bench it's" {
			t.Errorf("withAppName(%q): application_name %q", conn, got)
		}
	}
}
