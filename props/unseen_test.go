package props

import (
	"strings"
	"testing"
)

// unseenFail is a history whose Fail was recorded by a try the worker did
// not see commit; the worker logs the decision with its later try, fenced,
// giving reason.
func unseenFail(reason string) History {
	b := newBuilder()
	setup(b)
	b.commit(none, b.enqueue(1))
	b.commit(w1, b.reserve(1, w1))
	b.start(1, w1)
	b.commit(w1, b.fail(1, "HTTP 400"))
	b.event(ExecEnded, w1, func(e *Event) { e.Job, e.Decision, e.Reason = job(1), Fail, reason })
	b.event(ResultFenced, w1, func(e *Event) { e.Job = job(1) })
	return b.history()
}

// A Fail decision logged after its row failed under the same worker with
// the same reason is that row's decision: no lost job. Another reason is
// not.
func TestFailDecisionLoggedAfterAnUnseenCommit(t *testing.T) {
	if vs, err := Check(unseenFail("HTTP 400")); err != nil || len(vs) != 0 {
		t.Errorf("unseen commit of a Fail: %v, %v", vs, err)
	}
	vs, err := Check(unseenFail("something else"))
	if err != nil || len(vs) != 1 || vs[0].Property != NoLostJobs || !strings.Contains(vs[0].Message, "handler decision: none") {
		t.Errorf("a Fail with another reason: %v, %v; want one violation of property 4", vs, err)
	}
}
