package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/props"
)

// Every fault kind is planned, the PostgreSQL restart once and only with a
// command, in time order, within the phase.
func TestPlanFaults(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		d := 12 * time.Second
		for _, restart := range []bool{false, true} {
			plan := planFaults(clockrng.NewRand(seed), d, restart)
			var n [faultKinds]int
			for i, f := range plan {
				n[f.kind]++
				if f.at <= 0 || f.at >= d || (i > 0 && f.at < plan[i-1].at) {
					t.Fatalf("seed %d: fault %d at %v: out of the phase or out of order: %v", seed, i, f.at, plan)
				}
			}
			for k := faultKind(0); k < faultRestartPG; k++ {
				if n[k] == 0 {
					t.Errorf("seed %d: no %s planned", seed, faultNames[k])
				}
			}
			if want := map[bool]int{false: 0, true: 1}[restart]; n[faultRestartPG] != want {
				t.Errorf("seed %d, restart %v: %d PostgreSQL restarts planned, want %d", seed, restart, n[faultRestartPG], want)
			}
		}
	}
}

// The webhook answers depend on the seed, the token and the delivery
// number only, and every kind of answer comes up.
func TestHookAnswersAreSeeded(t *testing.T) {
	a, b := &hookServer{seed: 7, maxSlow: time.Second}, &hookServer{seed: 7, maxSlow: time.Second}
	var kinds [answerKinds]int
	for i := range 2000 {
		token := strings.Repeat("x", i%5) + string(rune('a'+i%26))
		ka, da := a.decide(token, i/26)
		kb, db := b.decide(token, i/26)
		if ka != kb || da != db {
			t.Fatalf("delivery %d of %q: %v/%v and %v/%v from the same seed", i/26, token, ka, da, kb, db)
		}
		if da < 0 || da >= time.Second {
			t.Fatalf("slow answer delay %v outside [0, 1s)", da)
		}
		kinds[ka]++
	}
	for k, n := range kinds {
		if n == 0 {
			t.Errorf("no %s answer in 2000 deliveries", answerNames[k])
		}
	}
}

// A log cut short by SIGKILL loses only its last line; a bad line
// elsewhere is an error naming the file and line.
func TestLoadLog(t *testing.T) {
	dir := t.TempDir()
	good := `{"Seq":0,"Time":"2030-01-02T03:04:05Z","Kind":"restarted","Process":"w1"}` + "\n"
	cut := filepath.Join(dir, "cut.jsonl")
	if err := os.WriteFile(cut, []byte(good+good+`{"Seq":0,"Time":"2030-01-0`), 0o644); err != nil {
		t.Fatal(err)
	}
	events, n, err := loadLog(cut)
	if err != nil || len(events) != 2 || n != 1 {
		t.Fatalf("cut log: %d events, %d cut, err %v; want 2, 1, nil", len(events), n, err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(good+`{"Nope":1}`+"\n"+good), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadLog(bad); err == nil || !strings.Contains(err.Error(), "bad.jsonl line 2") {
		t.Fatalf("bad line: err %v, want one naming bad.jsonl line 2", err)
	}
	if events, _, err := loadLog(filepath.Join(dir, "never-written.jsonl")); err != nil || len(events) != 0 {
		t.Fatalf("missing log (killed before its first event): %v, %v", events, err)
	}
}

// A worker is drained only once it surely handles SIGTERM: its history
// log exists, or it started long ago.
func TestHandlesSignals(t *testing.T) {
	log := filepath.Join(t.TempDir(), "w1.1.history.jsonl")
	s := &slot{name: "w1", startedAt: time.Now(), logs: []string{log}}
	if s.handlesSignals() {
		t.Fatal("a worker started a moment ago, with no history log yet, counts as handling signals")
	}
	if err := os.WriteFile(log, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !s.handlesSignals() {
		t.Fatal("a worker whose history log exists does not count as handling signals")
	}
	old := &slot{name: "w2", startedAt: time.Now().Add(-2 * signalsHandledAfter), logs: []string{log + ".none"}}
	if !old.handlesSignals() {
		t.Fatal("a worker started long ago, still connecting, does not count as handling signals")
	}
}

func TestWithAppName(t *testing.T) {
	u, err := url.Parse(withAppName("postgres://u@h:5432/d?sslmode=disable", "chaos-s-w1"))
	if err != nil || u.Query().Get("application_name") != "chaos-s-w1" || u.Query().Get("sslmode") != "disable" {
		t.Fatalf("URL form: %v, %v", u, err)
	}
	if got := withAppName("host=h dbname=d", "chaos-s-w1"); got != "host=h dbname=d application_name='chaos-s-w1'" {
		t.Fatalf("key=value form: %q", got)
	}
}

// A worker row shut down by a leader within the threshold is reported;
// one past it, or one shut down by its own graceful shutdown, is not.
func TestDeadTooSoon(t *testing.T) {
	base := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	soon, late, graceful := ulid.MustParse("01J0000000000000000000000A"), ulid.MustParse("01J0000000000000000000000B"), ulid.MustParse("01J0000000000000000000000C")
	workers := []props.WorkerRow{
		{ID: soon, RegisteredAt: base, LastSeenAt: base, ShutdownAt: base.Add(2 * time.Second)},
		{ID: late, RegisteredAt: base, LastSeenAt: base, ShutdownAt: base.Add(3 * time.Second)},
		{ID: graceful, RegisteredAt: base, LastSeenAt: base, ShutdownAt: base.Add(time.Second)},
	}
	h := props.History{Events: []props.Event{{Kind: props.ShutdownBegan, Worker: graceful}}}
	vs := deadTooSoon(h, workers, 2*time.Second)
	if len(vs) != 1 || vs[0].Workers[0].ID != soon {
		t.Fatalf("violations %v, want one for %s", vs, soon)
	}
	if got := missing([]ulid.ULID{soon, late}, []props.JobRow{{ID: late}}); len(got) != 1 || got[0] != soon {
		t.Fatalf("missing: %v, want [%s]", got, soon)
	}
}
