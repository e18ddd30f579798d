package main

import (
	"slices"
	"testing"
)

// TestWorkerDB: without -pgbouncer-url the workers connect directly and get
// no pooler settings; with it, they use the bouncer, pooler-safe
// statements, and LISTEN on the direct URL.
func TestWorkerDB(t *testing.T) {
	direct := options{databaseURL: "postgres://direct/db"}
	if url, env := direct.workerDB(); url != direct.databaseURL || env != nil {
		t.Errorf("direct: workerDB() = %q, %q", url, env)
	}
	pooled := options{databaseURL: "postgres://direct/db", bouncerURL: "postgres://bouncer/db"}
	url, env := pooled.workerDB()
	want := []string{"TICKWORK_TRANSACTION_POOLING=true", "TICKWORK_LISTEN_URL=postgres://direct/db"}
	if url != pooled.bouncerURL || !slices.Equal(env, want) {
		t.Errorf("pooled: workerDB() = %q, %q; want %q, %q", url, env, pooled.bouncerURL, want)
	}
}
