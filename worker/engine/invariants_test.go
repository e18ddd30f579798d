package engine

import (
	"testing"

	"github.com/tickwork/tickwork/internal/testpanic"
)

// A core or policy whose state contradicts itself panics at the next call
// or step, naming what broke.
func TestInvariantsPanic(t *testing.T) {
	e := newEnv(t)
	c, _ := e.core(testConfig(), 1)
	e.enqueue("q", 1)
	job := e.tick(c)[0]
	c.pending = append(c.pending, pendingResult{Result: Result{JobID: job.ID}, job: &job})
	testpanic.Want(t, "both executing and waiting", func() { c.checkInvariants("Tick") })

	c2, _ := e.core(testConfig(), 2)
	e.tick(c2)
	c2.id = [16]byte{}
	c2.leader = true
	testpanic.Want(t, "leads with no worker id", func() { c2.checkInvariants("test") })

	p := NewPolicy(c2)
	p.lingering = true
	c2.leader = false
	testpanic.Want(t, "lingering for results while not serving or with no job running", func() { p.Step(Input{Kind: InNotification}) })
}
