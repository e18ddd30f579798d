package pg_test

import (
	"strings"
	"testing"

	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// A listen URL that cannot be reached is named in the error, not the main
// URL's server, and its password never is.
func TestListenURLErrorNamesTheListenServer(t *testing.T) {
	t.Parallel() // a schema of its own
	st := pgtest.OpenWith(t, pg.Options{ListenURL: "postgres://listener:s3cr3t-pw@127.0.0.1:1/listendb?connect_timeout=2"})
	_, err := st.Listen(t.Context())
	if err == nil {
		t.Fatal("Listen through an unreachable listen URL succeeded")
	}
	msg := err.Error()
	if !strings.Contains(msg, "port=1 database=listendb user=listener") || strings.Contains(msg, "s3cr3t-pw") || strings.Contains(msg, "port=5432") {
		t.Errorf("Listen error %q: want the listen URL's server named, not the main one's, and no password", msg)
	}
}
