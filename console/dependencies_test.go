package console

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// The job page of a waiting job says which parents it waits for, with
// their statuses and links, and whether it runs if one fails.
func TestJobPageSaysWhatAJobWaitsFor(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var parent, child ulid.ULID
	err := f.st.InTx(ctx, func(tx store.Tx) error {
		now, err := tx.Now(ctx)
		if err != nil {
			return err
		}
		rnd := clockrng.NewRand(12)
		parent, child = clockrng.NewULID(now, rnd), clockrng.NewULID(now, rnd)
		_, err = tx.InsertJobs(ctx, []store.NewJob{{ID: parent, Queue: "digest", Payload: json.RawMessage(`{}`)},
			{ID: child, Queue: "digest", Payload: json.RawMessage(`{}`), Parents: []ulid.ULID{parent}, RunAnyway: true}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := f.server(t, "")
	var d JobDetail
	getJSON(t, srv.URL+"/api/jobs/"+child.String(), &d)
	if d.Job.Status != store.Waiting || len(d.WaitsFor) != 1 || d.WaitsFor[0] != (Parent{ID: parent, Status: store.Available}) || !d.RunsAnyway || !d.CanCancel {
		t.Fatalf("detail of the waiting job: %+v", d)
	}
	resp, err := http.Get(srv.URL + "/jobs/" + child.String())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	page := string(body)
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
