package console

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// The job page of a batch's waiting callback says how far its batch is
// and that it waits for the rest; a member's links to its batch.
func TestJobPageSaysWhatABatchIsAt(t *testing.T) {
	f := newFixture(t)
	member, cb := f.insertTwo(t, func(member, cb ulid.ULID) []store.NewJob {
		return []store.NewJob{{ID: member, Queue: "digest", Payload: json.RawMessage(`{}`), Batch: cb},
			{ID: cb, Queue: "digest", Payload: json.RawMessage(`{}`), Callback: true}}
	})
	srv := f.server(t, "")
	var d JobDetail
	getJSON(t, srv.URL+"/api/jobs/"+cb.String(), &d)
	if b := d.Batch; d.Job.Status != store.Waiting || b == nil || b.ID != cb || !b.IsCallback || !b.Waiting || b.Members != 1 || b.Ended != 0 {
		t.Fatalf("detail of the waiting callback: %+v, batch %+v", d, d.Batch)
	}
	_, body := get(t, srv.URL+"/jobs/"+cb.String())
	for _, want := range []string{`id="batch"`, "callback of batch", "0 of 1 members ended", "it waits for the rest"} {
		if !strings.Contains(body, want) {
			t.Errorf("the callback's page lacks %q", want)
		}
	}
	var md JobDetail
	getJSON(t, srv.URL+"/api/jobs/"+member.String(), &md)
	if b := md.Batch; b == nil || b.ID != cb || b.IsCallback || b.Waiting {
		t.Errorf("the member's batch: %+v", md.Batch)
	}
}
