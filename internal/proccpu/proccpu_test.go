package proccpu

import (
	"os"
	"testing"
	"time"
)

func TestPostgresTicks(t *testing.T) {
	for _, c := range []struct {
		stat string
		want int64
		ok   bool
	}{
		{"2217 (postgres) S 1 2217 2217 0 -1 4194304 32805 5830815 0 332 6 83 48320 7997 20 0 1 0 3262", 6 + 83 + 48320 + 7997, true},
		{"4000 (postgres) R 2217 4000 4000 0 -1 4194304 100 0 0 0 250 40 0 0 20 0 1 0 9000", 290, true},
		{"17 (go test) S 1 17 17 0 -1 4194304 100 0 0 0 250 40 0 0 20 0 1 0 9000", 0, false},
		{"18 (a) (postgres) S 1 17 17 0 -1 4194304 100 0 0 0 250 40 0 0 20 0 1 0 9000", 0, false},
		{"19 (postgres) S 1 2", 0, false},
	} {
		got, ok := postgresTicks(c.stat)
		if got != c.want || ok != c.ok {
			t.Errorf("postgresTicks(%q) = %d, %v; want %d, %v", c.stat, got, ok, c.want, c.ok)
		}
	}
}

// TestSelfGrowsWithWork checks that Self counts this process's own work:
// spinning makes it grow by 5 ms. It spins until then, up to 10 s of wall
// time: on a machine loaded by others 50 ms of spinning may get less than
// 5 ms of processor time (3.8 ms once at a load of 30 on 2 cores).
func TestSelfGrowsWithWork(t *testing.T) {
	before, ok := Self()
	if !ok {
		t.Fatal("Self: no processor time from getrusage")
	}
	after := before
	for start := time.Now(); after-before < 5*time.Millisecond && time.Since(start) < 10*time.Second; after, _ = Self() {
		spin()
	}
	if after-before < 5*time.Millisecond {
		t.Errorf("Self grew by %v over 10 s of spinning, want at least 5 ms", after-before)
	}
}

// TestProcessReadsThisProcess reads this process by its pid, as a
// benchmark reads a PostgreSQL backend, and spins until it grows by 5 ms
// (up to 10 s, as above); a pid that exists nowhere is not seen.
func TestProcessReadsThisProcess(t *testing.T) {
	pid := uint32(os.Getpid())
	before, ok := Process(pid)
	if !ok {
		t.Fatal("Process: no schedstat for this process")
	}
	after := before
	for start := time.Now(); after-before < 5*time.Millisecond && time.Since(start) < 10*time.Second; after, _ = Process(pid) {
		spin()
	}
	if after-before < 5*time.Millisecond {
		t.Errorf("Process grew by %v over 10 s of spinning, want at least 5 ms", after-before)
	}
	if used, ok := Process(1 << 30); ok {
		t.Errorf("Process of a pid beyond pid_max = %v, true; want not seen", used)
	}
}

var sink int

// spin does a little work the compiler cannot drop.
func spin() {
	for i := range 100_000 {
		sink += i
	}
}

func TestSinceKeepsWhatBothReadingsSaw(t *testing.T) {
	earlier := Reading{Server: 2 * time.Second, Self: time.Second, ServerSeen: true, SelfSeen: true}
	later := Reading{Server: 5 * time.Second, Self: 3 * time.Second, SelfSeen: true}
	want := Reading{Server: 3 * time.Second, Self: 2 * time.Second, SelfSeen: true}
	if got := later.Since(earlier); got != want {
		t.Errorf("Since = %+v, want %+v", got, want)
	}
}
