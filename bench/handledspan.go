package main

import (
	"sync"
	"time"
)

// handledSpan is the span of the jobs a tickwork worker's handlers ran, on
// the machine's clock, which is the database's: what Span reads when the
// jobs' queue keeps no history (-tickwork-history none), since the
// completions then leave no row to read it from, as graphile-worker's.
type handledSpan struct {
	mu sync.Mutex
	sp span
}

// add counts a job whose handler started at start and returned at end.
func (h *handledSpan) add(start, end time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sp.n == 0 || start.Before(h.sp.first) {
		h.sp.first = start
	}
	if end.After(h.sp.last) {
		h.sp.last = end
	}
	h.sp.n++
}

// take returns the span so far and starts a new one.
func (h *handledSpan) take() span {
	h.mu.Lock()
	defer h.mu.Unlock()
	sp := h.sp
	h.sp = span{}
	return sp
}
