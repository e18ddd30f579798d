package pg_test

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// userTimeoutOf reads TCP_USER_TIMEOUT back from a connection of s's pool.
func userTimeoutOf(t *testing.T, s *pg.Store) time.Duration {
	t.Helper()
	conn, err := s.Pool().Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	tcp, ok := conn.Conn().PgConn().Conn().(*net.TCPConn)
	if !ok {
		t.Fatalf("the test database's connection is a %T, not TCP: set DATABASE_URL to a host:port", conn.Conn().PgConn().Conn())
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var ms int
	var serr error
	if err := raw.Control(func(fd uintptr) {
		ms, serr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT)
	}); err != nil {
		t.Fatal(err)
	}
	if serr != nil {
		t.Fatalf("read TCP_USER_TIMEOUT: %v", serr)
	}
	return time.Duration(ms) * time.Millisecond
}

// Every connection of the pool has TCP_USER_TIMEOUT set, to the default
// or to Options.UserTimeout; a socket left alone reads 0.
func TestConnectionsHaveTheUserTimeout(t *testing.T) {
	for _, tc := range []struct {
		opt, want time.Duration
	}{
		{0, pg.DefaultUserTimeout},
		{7 * time.Second, 7 * time.Second},
	} {
		s := pgtest.OpenWith(t, pg.Options{UserTimeout: tc.opt})
		if got := userTimeoutOf(t, s); got != tc.want {
			t.Errorf("UserTimeout %v: the connection's TCP_USER_TIMEOUT is %v, want %v", tc.opt, got, tc.want)
		}
	}
}
