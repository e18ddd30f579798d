package console

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// The job page of a waiting job says which parents it waits for, with
// their statuses and links, and whether it runs if one fails.
func TestJobPageSaysWhatAJobWaitsFor(t *testing.T) {
	f := newFixture(t)
	parent, child := f.insertTwo(t, func(parent, child ulid.ULID) []store.NewJob {
		return []store.NewJob{{ID: parent, Queue: "digest", Payload: json.RawMessage(`{}`)},
			{ID: child, Queue: "digest", Payload: json.RawMessage(`{}`), Parents: []ulid.ULID{parent}, RunAnyway: true}}
	})
	srv := f.server(t, "")
	var d JobDetail
	getJSON(t, srv.URL+"/api/jobs/"+child.String(), &d)
	if d.Job.Status != store.Waiting || len(d.WaitsFor) != 1 || d.WaitsFor[0] != (Parent{ID: parent, Status: store.Available}) || !d.RunsAnyway || !d.CanCancel {
		t.Fatalf("detail of the waiting job: %+v", d)
	}
	_, page := get(t, srv.URL+"/jobs/"+child.String())
	for _, want := range []string{`id="waits-for"`, `href="/jobs/` + parent.String() + `"`, "s-waiting", "runs even if one fails"} {
		if !strings.Contains(page, want) {
			t.Errorf("the job page lacks %q", want)
		}
	}
	var pd JobDetail
	getJSON(t, srv.URL+"/api/jobs/"+parent.String(), &pd)
	if pd.Job.ID != parent || len(pd.WaitsFor) != 0 {
		t.Errorf("the parent's detail says it waits for %v", pd.WaitsFor)
	}
}
