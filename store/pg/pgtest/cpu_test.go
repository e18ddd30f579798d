package pgtest

import "testing"

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
