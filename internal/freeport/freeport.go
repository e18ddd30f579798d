// Package freeport finds loopback ports nothing listens on, for the
// servers the tests and the chaos run start as processes of their own
// (pgbouncer, pg_auto_failover), which must be told a port to listen on.
package freeport

import (
	"fmt"
	"net"
)

// Loopback returns n distinct ports on 127.0.0.1 that nothing listens on
// now. They are held until all are found, so none is returned twice.
func Loopback(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free loopback port: %w", err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
