package worker

import (
	"testing"
)

// BenchmarkThroughputLimited measures what a global limit costs when it
// never binds: four workers at 100 concurrent each, the noop queue limited
// to 1,000 running jobs, against the same run without a limit, alternated
// in one process so that both see the same machine. It reports both
// rates and limited/unlimited. Run it with -benchtime 1x (or Nx for N
// pairs).
func BenchmarkThroughputLimited(b *testing.B) {
	const workers, limit = 4, 1000
	var free, limited float64
	for range b.N {
		free += runThroughput(b, workers, benchJobs(b), 0)
		limited += runThroughput(b, workers, benchJobs(b), limit)
	}
	n := float64(b.N)
	b.ReportMetric(free/n, "unlimited-jobs/s")
	b.ReportMetric(limited/n, "limited-jobs/s")
	b.ReportMetric(limited/free, "limited/unlimited")
	b.Logf("limit %d above a load of %d: %.0f vs %.0f jobs/s", limit, workers*100, limited/n, free/n)
}
