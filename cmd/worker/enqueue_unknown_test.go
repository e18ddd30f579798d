package main

import (
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// A job for a queue no built-in handler serves is stored (another worker
// may register that queue) with a warning naming the queue; a bad payload
// for such a queue is refused before anything is written.
func TestEnqueueToAnUnknownQueue(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	code, stdout, stderr := runCLI(t, nil, cmdArgs([]string{"enqueue"}, db, "-queue", "emails", "-payload", `{"to": "a@example.com"}`)...)
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "queue has no built-in handler") || !strings.Contains(stderr, "emails") {
		t.Errorf("no warning naming the queue:\n%s", stderr)
	}
	id := ulid.MustParseStrict(strings.TrimSpace(stdout))
	if jobs := listJobs(t, st); len(jobs) != 1 || jobs[0].ID != id || jobs[0].Queue != "emails" {
		t.Fatalf("jobs %+v, want the one enqueued on emails", jobs)
	}

	code, _, stderr = runCLI(t, nil, cmdArgs([]string{"enqueue"}, db, "-queue", "emails", "-payload", `{"to": `)...)
	if code != exitUsage || !strings.Contains(stderr, "not valid JSON") {
		t.Fatalf("malformed payload: exit %d, stderr:\n%s", code, stderr)
	}
	if jobs := listJobs(t, st); len(jobs) != 1 {
		t.Fatalf("%d jobs after a refused enqueue, want 1", len(jobs))
	}
}
