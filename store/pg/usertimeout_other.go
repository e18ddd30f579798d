//go:build !linux

package pg

import (
	"syscall"
	"time"
)

// userTimeout sets nothing: TCP_USER_TIMEOUT is Linux's.
func userTimeout(time.Duration) func(network, address string, c syscall.RawConn) error {
	return nil
}
