package console

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// A snoozed row is not a failure in the overview's failure rate, and the
// job's detail shows its chain: the snoozed row, how long it snoozed, and
// the row that runs next with one more snooze.
func TestSnoozedJobsAreNotFailures(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var snoozed ulid.ULID
	err := f.st.InTx(ctx, func(tx store.Tx) error {
		now, err := tx.Now(ctx)
		if err != nil {
			return err
		}
		rnd := clockrng.NewRand(11)
		snoozed = clockrng.NewULID(now, rnd)
		if _, err := tx.InsertJobs(ctx, []store.NewJob{{ID: snoozed, Queue: "digest", Payload: json.RawMessage(`{}`), MaxAttempts: 4}}); err != nil {
			return err
		}
		if _, err := tx.Reserve(ctx, f.worker, []string{"digest"}, 1); err != nil {
			return err
		}
		_, err = tx.SnoozeJob(ctx, f.worker, snoozed, clockrng.NewULID(now, rnd), time.Minute)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := f.server(t, "")
	var o Overview
	getJSON(t, srv.URL+"/api/", &o)
	if o.Failed != f.failedN || o.Completed != f.completed {
		t.Errorf("window after a snooze: completed %d failed %d, want %d and %d", o.Completed, o.Failed, f.completed, f.failedN)
	}
	var d JobDetail
	getJSON(t, srv.URL+"/api/jobs/"+snoozed.String(), &d)
	if len(d.Attempts) != 2 || d.Job.Status != store.Snoozed || d.Job.Reason != "snoozed for 1m0s" {
		t.Fatalf("detail of the snoozed job: %+v", d)
	}
	if next := d.Attempts[1]; next.Attempt != 0 || next.Snoozes != 1 || next.MaxAttempts != 4 || next.Status != store.Scheduled {
		t.Fatalf("the row after the snooze: %+v", next)
	}
	resp, err := http.Get(srv.URL + "/jobs/" + snoozed.String())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	page := string(body)
	for _, want := range []string{"s-snoozed", "snoozed for 1m0s", "of at most 4"} {
		if !strings.Contains(page, want) {
			t.Errorf("the job page lacks %q", want)
		}
	}
}
