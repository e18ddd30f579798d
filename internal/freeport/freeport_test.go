package freeport

import (
	"net"
	"strconv"
	"testing"
)

func TestLoopbackPortsAreDistinctAndFree(t *testing.T) {
	ports, err := Loopback(3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ports) != 3 || ports[0] == ports[1] || ports[1] == ports[2] || ports[0] == ports[2] {
		t.Fatalf("Loopback(3) = %v, want three distinct ports", ports)
	}
	for _, p := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d is not free: %v", p, err)
		}
		ln.Close()
	}
}
