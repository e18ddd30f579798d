package main

import (
	"fmt"
	"time"

	"github.com/tickwork/tickwork/internal/proccpu"
)

// A run's processor time: the local server's and this process's, which
// runs one system's worker at a time. They move far less than a rate on
// a shared machine, where a system that waits for a processor loses
// throughput but not processor time, so the two systems' figures per job
// compare their costs when their rates are noise.
type cpuSpan struct {
	server, self   time.Duration
	serverSeen, ok bool
}

// startCPU reads both clocks at the start of a run.
func startCPU() cpuSpan {
	var c cpuSpan
	c.server, c.serverSeen = proccpu.Server()
	c.self, c.ok = proccpu.Self()
	return c
}

// stop returns what was used since startCPU.
func (c cpuSpan) stop() cpuSpan {
	server, serverSeen := proccpu.Server()
	self, ok := proccpu.Self()
	return cpuSpan{server: server - c.server, self: self - c.self, serverSeen: c.serverSeen && serverSeen, ok: c.ok && ok}
}

// perJob is d per job of n, in µs.
func perJob(d time.Duration, n int) float64 {
	return float64(d.Microseconds()) / float64(max(n, 1))
}

// report is the run line's processor figures, empty when unknown.
func (c cpuSpan) report(jobs int) string {
	s := ""
	if c.serverSeen {
		s += fmt.Sprintf("; server processor %.1f µs/job", perJob(c.server, jobs))
	}
	if c.ok {
		s += fmt.Sprintf("; worker process %.1f µs/job", perJob(c.self, jobs))
	}
	return s
}

// add records the figures per job of the run called what.
func (c cpuSpan) add(r *results, what, system string, jobs int) {
	if c.serverSeen {
		r.add("server processor time, "+what+" (µs/job)", system, perJob(c.server, jobs))
	}
	if c.ok {
		r.add("worker process processor time, "+what+" (µs/job)", system, perJob(c.self, jobs))
	}
}
