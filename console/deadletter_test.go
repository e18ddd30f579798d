package console

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// The overview shows each queue's dead-letter queue; the job page of a
// dead letter says from which queue it was dead-lettered, in HTML and
// JSON.
func TestDeadLettersAreShown(t *testing.T) {
	f := newFixture(t)
	id, _ := f.insertTwo(t, func(a, b ulid.ULID) []store.NewJob {
		return []store.NewJob{{ID: a, Queue: "digest", Payload: json.RawMessage(`{}`)}}
	})
	f.controlQueue(t, func(ctx context.Context, tx store.Tx) error {
		if err := tx.SetQueueDeadLetter(ctx, "digest", "digest.dead"); err != nil {
			return err
		}
		if _, err := tx.Reserve(ctx, f.worker, []string{"digest"}, 1); err != nil {
			return err
		}
		if err := tx.FailJob(ctx, f.worker, id, "bounced"); err != nil {
			return err
		}
		_, err := tx.DeadLetterJob(ctx, id)
		return err
	})
	srv := f.server(t, "")
	var o Overview
	getJSON(t, srv.URL+"/api/", &o)
	var dead string
	for _, q := range o.Queues {
		if q.Queue == "digest" {
			dead = q.DeadLetter
		}
	}
	if dead != "digest.dead" {
		t.Errorf("overview's dead letter of digest = %q, want digest.dead", dead)
	}
	if _, body := get(t, srv.URL+"/"); !strings.Contains(body, `class="dead-letter"><a href="/jobs?queue=digest.dead"`) {
		t.Errorf("the overview does not link digest's dead-letter queue")
	}
	var d JobDetail
	getJSON(t, srv.URL+"/api/jobs/"+id.String(), &d)
	if d.Job.Queue != "digest.dead" || d.Job.DeadFrom != "digest" || !d.CanRetry {
		t.Fatalf("detail of the dead letter: %+v", d.Job)
	}
	_, body := get(t, srv.URL+"/jobs/"+id.String())
	for _, want := range []string{`id="dead-letter"`, "failed for good in queue", "moved to dead-letter queue digest.dead", "jobs redrive -queue digest.dead"} {
		if !strings.Contains(body, want) {
			t.Errorf("the dead letter's page lacks %q", want)
		}
	}
}
