package props

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// busyRun is a long healthy history: three workers take turns with the
// lease and run jobs two at a time, some retried once.
func busyRun(b *builder, jobs int) {
	ws := []ulid.ULID{w1, w2, w3}
	for _, w := range ws {
		b.commit(w, b.register(w))
	}
	for n := 1; n <= jobs; n += 2 {
		w := ws[n%3]
		b.reacquire(w)
		b.commit(none, b.enqueue(n), b.enqueue(n+1))
		b.commit(w, b.reserve(n, w), b.reserve(n+1, w), b.heartbeat(w))
		b.start(n, w)
		b.start(n+1, w)
		b.after(time.Second)
		b.end(n, w, Succeed)
		b.end(n+1, w, Fail)
		b.commit(w, b.complete(n), b.fail(n+1, "no"))
		b.after(5 * time.Second)
	}
}

func BenchmarkStep(b *testing.B) {
	hb := newBuilder()
	busyRun(hb, 20000)
	events := hb.history().Events
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c, err := New(hb.params)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range events {
			if v := c.Step(&e); v != nil {
				b.Fatal(v)
			}
		}
		if vs := c.Finish(); len(vs) != 0 {
			b.Fatal(vs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
}
