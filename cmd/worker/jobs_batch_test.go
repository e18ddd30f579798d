package main

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
	"github.com/tickwork/tickwork/worker"
)

// TestJobsShowOfABatch: jobs show of a waiting callback says what it
// waits for and how far its batch is, and of a member which batch it is
// in, counted as the leader counts.
func TestJobsShowOfABatch(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	ctx := context.Background()
	cb, members, err := worker.EnqueueBatch(ctx, worker.NewClient(st, nil), []struct{}{{}, {}}, struct{}{},
		worker.WithQueue("mail"), worker.CallbackOptions(worker.WithQueue("report")))
	if err != nil {
		t.Fatal(err)
	}
	show := func(id ulid.ULID, extra ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, nil, cmdArgs([]string{"jobs", "show"}, db, append(extra, id.String())...)...)
		if code != exitOK {
			t.Fatalf("jobs show %s: exit %d; stderr:\n%s", id, code, stderr)
		}
		return stdout
	}
	out := show(cb)
	if !regexp.MustCompile(`(?m)^waits:\s+for the members of its batch to end: 0 of 2 ended`).MatchString(out) ||
		!strings.Contains(out, "callback of batch "+cb.String()+": 0 of 2 members ended (0 completed, 0 failed, 0 cancelled)") {
		t.Errorf("jobs show of a waiting callback:\n%s", out)
	}
	w := ulid.ULID{15: 7}
	err = st.InTx(ctx, func(tx store.Tx) error { // one member fails for good and the leader counts it
		if err := tx.RegisterWorker(ctx, w); err != nil {
			return err
		}
		if _, err := tx.Reserve(ctx, w, []string{"mail"}, 1); err != nil {
			return err
		}
		if err := tx.FailJob(ctx, w, members[0], "boom"); err != nil {
			return err
		}
		_, err := tx.SettleWaitingJobs(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if out := show(members[1]); !strings.Contains(out, "member of batch "+cb.String()+": 1 of 2 members ended (0 completed, 1 failed, 0 cancelled); failed: "+members[0].String()) {
		t.Errorf("jobs show of a member:\n%s", out)
	}
	var shown struct {
		Job   jobJSON
		Batch *batchJSON `json:"batch_outcome"`
	}
	if err := json.Unmarshal([]byte(show(cb, "-format", "json")), &shown); err != nil || shown.Batch == nil ||
		shown.Batch.Members != 2 || shown.Batch.Failed != 1 || shown.Job.CallbackOf != cb {
		t.Errorf("jobs show -format json of a callback: %+v, %+v, %v", shown.Job, shown.Batch, err)
	}
}

// TestEnqueueABatch: enqueue -batch-callback-queue makes each element of
// the payload array a member, with the other flags, and prints the
// batch's id then the members'; a payload that is no array, or an empty
// one, is a usage error.
func TestEnqueueABatch(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	code, stdout, stderr := runCLI(t, nil, cmdArgs([]string{"enqueue"}, db, "-queue", "mail", "-payload", `[{"to":"a"},{"to":"b"}]`,
		"-priority", "3", "-batch-callback-queue", "report", "-batch-callback-payload", `{"day":1}`)...)
	if code != exitOK {
		t.Fatalf("enqueue a batch: exit %d; stderr:\n%s", code, stderr)
	}
	lines := strings.Fields(stdout)
	if len(lines) != 3 {
		t.Fatalf("enqueue a batch printed %q, want the batch's id and two members'", stdout)
	}
	cb := getJob(t, st, ulid.MustParse(lines[0]))
	if cb.Status != store.Waiting || cb.Queue != "report" || cb.CallbackOf != cb.ID || string(cb.Payload) != `{"day":1}` {
		t.Errorf("the callback: %s", store.FormatJob(cb))
	}
	for i, id := range lines[1:] {
		m := getJob(t, st, ulid.MustParse(id))
		if m.Batch != cb.ID || m.Queue != "mail" || m.Priority != 3 || !strings.Contains(string(m.Payload), []string{"a", "b"}[i]) {
			t.Errorf("member %d: %s", i, store.FormatJob(m))
		}
	}
	for _, payload := range []string{`{}`, `[]`} {
		code, _, stderr := runCLI(t, nil, cmdArgs([]string{"enqueue"}, db, "-queue", "mail", "-payload", payload, "-batch-callback-queue", "report")...)
		if code != exitUsage || !strings.Contains(stderr, "JSON array") {
			t.Errorf("enqueue a batch of %s: exit %d, stderr:\n%s", payload, code, stderr)
		}
	}
}
