package worker

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkThroughputLimited measures what a global limit costs when it
// never binds: four workers at 100 concurrent each, the noop queue limited
// to 1,000 running jobs, against the same run without a limit, alternated
// in one process so that both see the same machine. It reports both
// rates and limited/unlimited, and, when the server runs on this machine,
// the server's processor time per job of each and their ratio
// (unlimited over limited, so that it reads like the rates'): the rates
// move with the machine's other load, the processor time much less. Run
// it with -benchtime 1x, or Nx for N pairs: it then also reports the
// median of the pairs' own ratios, which one pair that met a busy moment
// moves less than the ratio of the mean rates, and logs each pair's.
func BenchmarkThroughputLimited(b *testing.B) {
	const workers, limit = 4, 1000
	var free, limited float64
	var freeCPU, limitedCPU time.Duration
	var pairs []float64
	for range b.N {
		unlimitedRun := runThroughput(b, workers, benchJobs(b), 0)
		limitedRun := runThroughput(b, workers, benchJobs(b), limit)
		free, freeCPU = free+unlimitedRun.rate, freeCPU+unlimitedRun.serverCPU
		limited, limitedCPU = limited+limitedRun.rate, limitedCPU+limitedRun.serverCPU
		pairs = append(pairs, limitedRun.rate/unlimitedRun.rate)
	}
	if b.N > 1 {
		b.Logf("limited/unlimited of each pair: %.2f", pairs)
		b.ReportMetric(median(pairs), "median-pair-limited/unlimited")
	}
	n := float64(b.N)
	b.ReportMetric(free/n, "unlimited-jobs/s")
	b.ReportMetric(limited/n, "limited-jobs/s")
	b.ReportMetric(limited/free, "limited/unlimited")
	if freeCPU > 0 && limitedCPU > 0 {
		perJob := func(d time.Duration) float64 { return float64(d.Microseconds()) / n / float64(benchJobs(b)) }
		b.ReportMetric(perJob(freeCPU), "unlimited-server-cpu-µs/job")
		b.ReportMetric(perJob(limitedCPU), "limited-server-cpu-µs/job")
		b.ReportMetric(float64(freeCPU)/float64(limitedCPU), "cpu-unlimited/limited")
	}
	b.Logf("limit %d above a load of %d: %.0f vs %.0f jobs/s", limit, workers*100, limited/n, free/n)
}

// median returns the median of xs (the mean of the middle two for an even
// count); xs is sorted in place.
func median(xs []float64) float64 {
	slices.Sort(xs)
	mid := len(xs) / 2
	if len(xs)%2 == 0 {
		return (xs[mid-1] + xs[mid]) / 2
	}
	return xs[mid]
}
