package engine

import (
	"testing"
	"time"
)

// A poll interval longer than the heartbeat's or half the lease must not
// let a live worker look dead or its lease lapse: the wait for the next
// tick is cut to whichever falls due first.
func TestNextPollWaitsNoLongerThanHeartbeatAndLease(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.PollInterval = time.Hour
	cfg.HeartbeatInterval = 10 * time.Second
	cfg.DeadWorkerThreshold = 30 * time.Second
	cfg.LeaseTTL = 4 * time.Second
	cfg.LeaderInterval = time.Second
	leader, _ := e.core(cfg, 1)
	e.tick(leader)
	if !leader.isLeader() {
		t.Fatal("the only worker did not take the lease")
	}
	if got, want := leader.nextPoll(), 2*time.Second; got != want {
		t.Errorf("leader waits %v with an hour's poll, want %v (half the lease)", got, want)
	}
	follower, _ := e.core(cfg, 2)
	e.tick(follower)
	if follower.isLeader() {
		t.Fatal("a second worker took a held lease")
	}
	if got, want := follower.nextPoll(), 10*time.Second; got != want {
		t.Errorf("follower waits %v with an hour's poll, want %v (the heartbeat)", got, want)
	}
	e.advance(10*time.Second - time.Nanosecond)
	e.tick(follower)
	if got, want := follower.nextPoll(), cfg.LeaseTTL/2/10; got != want {
		t.Errorf("follower a nanosecond before its heartbeat waits %v, want %v (a tenth of half the lease, the shortest, at least)", got, want)
	}
}

// A poll shorter than both keeps its own length.
func TestNextPollKeepsAShortPoll(t *testing.T) {
	e := newEnv(t)
	c, _ := e.core(testConfig(), 1)
	e.tick(c)
	if got := c.nextPoll(); got != time.Second {
		t.Errorf("nextPoll %v with the default config, want the 1s poll", got)
	}
}
