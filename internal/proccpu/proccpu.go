// Package proccpu reads processor time used so far, of the local
// PostgreSQL server, of one of its processes and of this process, for
// benchmarks to report beside their wall-clock figures: on a shared
// machine waiting for a processor moves the latter and hardly the former.
package proccpu

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// userHZ is the unit of the times in /proc/PID/stat: USER_HZ, 100 on
// every Linux architecture Go supports.
const userHZ = 100

// Server returns the processor time that the PostgreSQL server's
// processes on this machine have used so far (user and system, those
// running and the backends that have exited), read from /proc, and false
// when none is visible: the server runs on another machine, in a
// container, or not on Linux. Its resolution is 10 ms.
func Server() (time.Duration, bool) {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var ticks int64
	seen := false
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the process has exited since the listing
		}
		used, ok := postgresTicks(string(data))
		if ok {
			ticks += used
			seen = true
		}
	}
	return time.Duration(ticks) * time.Second / userHZ, seen
}

// postgresTicks reads a /proc/PID/stat line and returns the ticks its
// process and its exited children used, if the process is postgres. The
// children's are the postmaster's backends that have exited; a backend
// has none.
func postgresTicks(stat string) (int64, bool) {
	open, end := strings.IndexByte(stat, '('), strings.LastIndexByte(stat, ')')
	if open < 0 || end < open || stat[open+1:end] != "postgres" {
		return 0, false
	}
	// After the command: state is field 3 of the line, then utime, stime,
	// cutime and cstime are fields 14 to 17.
	fields := strings.Fields(stat[end+1:])
	if len(fields) < 15 {
		return 0, false
	}
	var sum int64
	for _, f := range fields[11:15] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, false
		}
		sum += n
	}
	return sum, true
}

// Self returns the processor time this process has used so far, user and
// system, and false when the system does not say.
func Self() (time.Duration, bool) {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0, false
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()), true
}

// Process returns the processor time process pid has run so far (user
// and system), from its /proc/PID/schedstat in nanoseconds, and false
// when that is not visible: the process runs on another machine or in a
// container, or has exited. A benchmark reads one PostgreSQL backend with
// it, where Server's 10 ms would blur a statement's cost.
func Process(pid uint32) (time.Duration, bool) {
	data, err := os.ReadFile("/proc/" + strconv.FormatUint(uint64(pid), 10) + "/schedstat")
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0, false
	}
	ns, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(ns), true
}

// Reading is the processor time used so far by the server (Server, when
// ServerSeen) and by this process (Self, when SelfSeen).
type Reading struct {
	Server, Self         time.Duration
	ServerSeen, SelfSeen bool
}

// Read reads both.
func Read() Reading {
	var r Reading
	r.Server, r.ServerSeen = Server()
	r.Self, r.SelfSeen = Self()
	return r
}

// Since is what was used from earlier to r; a figure either reading lacks
// is not seen.
func (r Reading) Since(earlier Reading) Reading {
	return Reading{Server: r.Server - earlier.Server, Self: r.Self - earlier.Self,
		ServerSeen: r.ServerSeen && earlier.ServerSeen, SelfSeen: r.SelfSeen && earlier.SelfSeen}
}
