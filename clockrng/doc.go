// Package clockrng holds every source of time and randomness that tickwork
// uses: the injected local clock, seeded random sources that split into
// independent children, ULIDs built from a given time and source, uniform
// jitter and the retry backoff policy.
//
// Nothing here reads the wall clock or the global math/rand source except
// Real, which is the production clock adapter; NewRandFromOS alone reads the
// operating system's randomness, to seed production sources.
package clockrng
