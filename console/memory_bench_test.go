package console

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
)

// BenchmarkJobPageMemory serves the worst job pages the store admits, each
// document (payload, metadata, output) at store.MaxPayloadBytes, and
// reports the peak of the console's memory while one page is drawn: the
// live heap above what it held before (sampled every millisecond) and the
// process's peak resident set (VmHWM, reset before each page). Run it with
//
//	go test -run '^$' -bench BenchmarkJobPageMemory -benchtime 5x ./console/
func BenchmarkJobPageMemory(b *testing.B) {
	for _, c := range []struct{ name, doc string }{
		{"deep-9990", deepPayload(9990)}, // JSON decoders refuse 10,000 deep
		{"wide-1MiB-numbers", "[" + strings.Repeat("0,", store.MaxPayloadBytes/2-2) + "0]"},
		{"wide-1MiB-keys", wideObject(store.MaxPayloadBytes)},
	} {
		b.Run(c.name, func(b *testing.B) {
			srv, s, id := boundsServer(b, Options{}, c.doc)
			_, err := s.opts.Store.Pool().Exec(context.Background(), s.sql(`UPDATE {jobs} SET metadata = payload, output = payload WHERE id = $1`), uuid(id))
			if err != nil {
				b.Fatal(err)
			}
			var peakHeap, peakRSS, size uint64
			for b.Loop() {
				heap, rss, n := pageMemory(b, srv.URL+"/jobs/"+id.String())
				peakHeap, peakRSS, size = max(peakHeap, heap), max(peakRSS, rss), n
			}
			b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(peakRSS)/(1<<20), "peak-RSS-MiB")
			b.ReportMetric(float64(size)/(1<<10), "page-KiB")
		})
	}
}

// wideObject is an object of about n bytes of one-letter-valued keys.
func wideObject(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; b.Len() < n-32; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + strconv.Itoa(i) + `":0`)
	}
	b.WriteString("}")
	return b.String()
}

// pageMemory GETs url and returns the heap's peak above its level before,
// the process's peak resident set during the request, and the page's size.
func pageMemory(b *testing.B, url string) (heap, rss, size uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // resets VmHWM on Linux
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base && m.HeapAlloc-base > peak.Load() {
				peak.Store(m.HeapAlloc - base)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	status, body := get(b, url)
	close(done)
	<-sampled
	if status != http.StatusOK {
		b.Fatalf("GET %s: %d %.300s", url, status, body)
	}
	return peak.Load(), vmHWM(), uint64(len(body))
}

// vmHWM is the process's peak resident set, 0 where /proc does not say.
func vmHWM() uint64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
