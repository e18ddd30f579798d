package main

import (
	crand "crypto/rand"
	"encoding/binary"

	"github.com/tickwork/tickwork/clockrng"
)

// newProcessRand returns a random source seeded from the operating system,
// so that ids made by different processes do not collide. Only the
// simulator needs reproducible seeds.
func newProcessRand() *clockrng.Rand {
	var b [8]byte
	_, _ = crand.Read(b[:]) // never fails on supported platforms
	return clockrng.NewRand(binary.LittleEndian.Uint64(b[:]))
}
