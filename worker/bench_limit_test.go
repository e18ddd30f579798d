package worker

import (
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
// it with -benchtime 1x (or Nx for N pairs).
func BenchmarkThroughputLimited(b *testing.B) {
	const workers, limit = 4, 1000
	var free, limited float64
	var freeCPU, limitedCPU time.Duration
	for range b.N {
		run := runThroughput(b, workers, benchJobs(b), 0)
		free, freeCPU = free+run.rate, freeCPU+run.serverCPU
		run = runThroughput(b, workers, benchJobs(b), limit)
		limited, limitedCPU = limited+run.rate, limitedCPU+run.serverCPU
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
