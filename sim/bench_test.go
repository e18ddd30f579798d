package sim

import "testing"

// BenchmarkSeeds simulates consecutive seeds of the default scenario; it
// reports seeds per second of one core.
func BenchmarkSeeds(b *testing.B) {
	for i := range b.N {
		r := Run(Draw(uint64(i+1), FaultOverrides{}), Options{})
		if r.Err != nil {
			b.Fatal(r.Err)
		}
	}
}
