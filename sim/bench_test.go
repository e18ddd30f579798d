package sim

import (
	"runtime"
	"testing"
)

// BenchmarkSeeds simulates consecutive seeds of the default scenario on one
// core, as simulate -seeds does on each of its cores (without the trace);
// it reports seeds per second, and the time, the allocations and the bytes
// allocated one simulated event costs.
func BenchmarkSeeds(b *testing.B) {
	var events int
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range b.N {
		r := Run(Draw(uint64(i+1), FaultOverrides{}), Options{Quiet: true})
		if r.Err != nil {
			b.Fatal(r.Err)
		}
		if r.Violation != nil {
			b.Fatalf("seed %d: %s", i+1, r.Report)
		}
		events += r.Events
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(events), "allocs/event")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(events), "B/event")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "seeds/s")
}
