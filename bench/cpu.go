package main

import (
	"fmt"
	"time"

	"github.com/tickwork/tickwork/internal/proccpu"
)

// A run's processor time (proccpu.Reading): the local server's and this
// process's, which runs one system's worker at a time. They move far less
// than a rate on a shared machine, where a system that waits for a
// processor loses throughput but not processor time, so the two systems'
// figures per job compare their costs when their rates are noise.

// perJob is d per job of n, in µs.
func perJob(d time.Duration, n int) float64 {
	return float64(d.Microseconds()) / float64(max(n, 1))
}

// cpuReport is the run line's processor figures of used, empty when
// unknown.
func cpuReport(used proccpu.Reading, jobs int) string {
	s := ""
	if used.ServerSeen {
		s += fmt.Sprintf("; server processor %.1f µs/job", perJob(used.Server, jobs))
	}
	if used.SelfSeen {
		s += fmt.Sprintf("; worker process %.1f µs/job", perJob(used.Self, jobs))
	}
	return s
}

// addCPU records the figures per job of used, in the run called what.
func addCPU(r *results, used proccpu.Reading, what, system string, jobs int) {
	if used.ServerSeen {
		r.add("server processor time, "+what+" (µs/job)", system, perJob(used.Server, jobs))
	}
	if used.SelfSeen {
		r.add("worker process processor time, "+what+" (µs/job)", system, perJob(used.Self, jobs))
	}
}
