package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestCompareTickworkHistory: -tickwork-history none runs tickwork's
// throughput queue without history; any other value than keep or none is
// refused, naming the flag.
func TestCompareTickworkHistory(t *testing.T) {
	f, err := parseCompare([]string{"-database-url", "postgres://x", "-tickwork-history", "none"}, io.Discard)
	if err != nil || !f.noHistory {
		t.Fatalf("-tickwork-history none: noHistory %t, %v", f.noHistory, err)
	}
	if f, err := parseCompare([]string{"-database-url", "postgres://x"}, io.Discard); err != nil || f.noHistory {
		t.Fatalf("default: noHistory %t, %v", f.noHistory, err)
	}
	_, err = parseCompare([]string{"-database-url", "postgres://x", "-tickwork-history", "off"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-tickwork-history") {
		t.Fatalf("-tickwork-history off: %v", err)
	}
}

// TestHandledSpan: the span runs from the first start to the last end of
// the handlers counted, and take starts a new one.
func TestHandledSpan(t *testing.T) {
	var h handledSpan
	t0 := time.Unix(1000, 0)
	h.add(t0.Add(time.Second), t0.Add(2*time.Second))
	h.add(t0, t0.Add(time.Second))
	sp := h.take()
	if sp.n != 2 || !sp.first.Equal(t0) || !sp.last.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("span %+v", sp)
	}
	if sp := h.take(); sp.n != 0 {
		t.Fatalf("span after take: %+v", sp)
	}
}
