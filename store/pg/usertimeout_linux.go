package pg

import (
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// userTimeout returns a dialer's Control that sets TCP_USER_TIMEOUT to d
// on each TCP socket before it connects: data unacknowledged for d drops
// the connection. A Unix socket is left alone.
func userTimeout(d time.Duration) func(network, address string, c syscall.RawConn) error {
	ms := int(d.Milliseconds())
	return func(network, address string, c syscall.RawConn) error {
		if network != "tcp" && network != "tcp4" && network != "tcp6" {
			return nil
		}
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, ms)
		}); err != nil {
			return err
		}
		if serr != nil {
			return fmt.Errorf("set TCP_USER_TIMEOUT %v on the connection to %s: %w", d, address, serr)
		}
		return nil
	}
}
