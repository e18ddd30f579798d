package main

import (
	"io"
	"testing"

	"github.com/tickwork/tickwork/store/pg"
)

// TestPoolerFlags: the flags, or their environment variables, reach the
// store options.
func TestPoolerFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want pg.Options
	}{
		{"none", nil, nil, pg.Options{}},
		{"flags", []string{"-transaction-pooling", "-listen-url", "postgres://db:5432/x"}, nil,
			pg.Options{TransactionPooling: true, ListenURL: "postgres://db:5432/x"}},
		{"environment", nil, map[string]string{"TICKWORK_TRANSACTION_POOLING": "true", "TICKWORK_LISTEN_URL": "postgres://db/y"},
			pg.Options{TransactionPooling: true, ListenURL: "postgres://db/y"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFlagSet("run", "run", io.Discard)
			var db dbFlags
			db.register(fs)
			if _, err := parseFlags(fs, tc.args, fakeEnv(tc.env)); err != nil {
				t.Fatal(err)
			}
			var got pg.Options
			db.pooler.apply(&got)
			if got.TransactionPooling != tc.want.TransactionPooling || got.ListenURL != tc.want.ListenURL {
				t.Errorf("options = %+v, want %+v", got, tc.want)
			}
		})
	}
}
