package sim

import (
	"fmt"
	"io"
	"strconv"
	"time"
)

// tracer renders the run as one line per event, stamped with virtual true
// time only. Every line feeds a hash (compared across runs and against
// golden values) and a ring of the latest lines (shown with a violation);
// lines are written out only when a trace writer is set (-v). A quiet
// tracer (Options.Quiet) builds and hashes nothing.
type tracer struct {
	quiet  bool
	w      io.Writer
	hash   uint64
	lines  int
	ring   [][]byte
	next   int
	buf    []byte
	err    error
	closed bool // the run is over: later lines are dropped
}

const fnvOffset, fnvPrime = 14695981039346656037, 1099511628211

func newTracer(w io.Writer, tail int, quiet bool) tracer {
	// buf has room for a line from the start: a quiet tracer's lines are
	// still begun, then dropped, and never grow it.
	return tracer{quiet: quiet, w: w, hash: fnvOffset, ring: make([][]byte, max(tail, 1)), buf: make([]byte, 0, 256)}
}

// printf adds one line: the virtual time, the actor, then the formatted text.
func (t *tracer) printf(at time.Duration, actor, format string, args ...any) {
	if t.quiet {
		return
	}
	t.add(fmt.Appendf(t.begin(at, actor), format, args...))
}

// begin starts a line of the most frequent kinds, which are built by
// appending to it and ended with add: printf's arguments each cost an
// allocation, and these lines come with nearly every event.
func (t *tracer) begin(at time.Duration, actor string) []byte {
	if t.quiet {
		return t.buf[:0]
	}
	b := appendStamp(t.buf[:0], at)
	b = append(b, ' ')
	b = append(b, actor...)
	return append(b, ' ')
}

// raw adds one line without a stamp (the scenario header).
func (t *tracer) raw(line string) { t.add(append(t.buf[:0], line...)) }

func (t *tracer) add(b []byte) {
	if t.closed || t.quiet {
		return
	}
	for i, c := range b {
		if c == '\n' {
			b[i] = ';' // one event, one line (joined errors span several)
		}
	}
	b = append(b, '\n')
	t.buf = b
	for _, c := range b {
		t.hash = (t.hash ^ uint64(c)) * fnvPrime
	}
	t.lines++
	t.ring[t.next] = append(t.ring[t.next][:0], b...)
	t.next = (t.next + 1) % len(t.ring)
	if t.w != nil && t.err == nil {
		_, t.err = t.w.Write(b)
	}
}

// tail returns the latest lines, oldest first, without their newlines.
func (t *tracer) tail() []string {
	var out []string
	for i := range t.ring {
		l := t.ring[(t.next+i)%len(t.ring)]
		if len(l) > 0 {
			out = append(out, string(l[:len(l)-1]))
		}
	}
	return out
}

// appendStamp writes at as seconds with microseconds, the seconds
// right-aligned in five columns (strconv, not fmt: it is on every line).
func appendStamp(b []byte, at time.Duration) []byte {
	us := int64(at / time.Microsecond)
	var digits [24]byte
	secs := digits[:0]
	if us < 0 {
		secs = append(secs, '-')
		us = -us
	}
	secs = strconv.AppendInt(secs, us/1_000_000, 10)
	for i := len(secs); i < 5; i++ {
		b = append(b, ' ')
	}
	b = append(b, secs...)
	b = append(b, '.')
	frac := us % 1_000_000
	for d := int64(100_000); d > 0; d /= 10 {
		b = append(b, byte('0'+frac/d%10))
	}
	return b
}
