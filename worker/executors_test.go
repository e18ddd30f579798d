package worker

import (
	"sync"
	"sync/atomic"
	"testing"
)

// Waves of jobs that run at once reuse the goroutines of the waves before
// them: never more goroutines than twice a wave, and close waits for all of
// them (the package's goleak check fails on one left behind).
func TestExecutorsReuseGoroutines(t *testing.T) {
	const wave, waves = 20, 50
	e := newExecutors()
	var ran atomic.Int64
	for range waves {
		release := make(chan struct{})
		var done sync.WaitGroup
		done.Add(wave)
		for range wave {
			e.run(func() {
				<-release // all of the wave run at once
				ran.Add(1)
				done.Done()
			})
		}
		close(release)
		done.Wait()
	}
	e.close()
	if got := ran.Load(); got != wave*waves {
		t.Fatalf("%d jobs ran, want %d", got, wave*waves)
	}
	if e.started > 2*wave {
		t.Fatalf("%d goroutines started for %d waves of %d jobs, want at most %d", e.started, waves, wave, 2*wave)
	}
	if e.started < wave {
		t.Fatalf("%d goroutines started, but %d jobs ran at once", e.started, wave)
	}
}
