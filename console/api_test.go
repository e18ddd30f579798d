package console

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	status, body := get(t, url)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", url, status, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("GET %s: %v\n%s", url, err, body)
	}
}

func TestOverviewCountsTheRows(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t, "")
	var o Overview
	getJSON(t, srv.URL+"/api/", &o)
	want := map[string]map[store.Status]int{
		"email":   {store.Available: 3, store.Running: 2, store.Completed: 2, store.Cancelled: 1, store.Scheduled: 1},
		"webhook": {store.Failed: 2, store.Running: 2, store.Scheduled: 1, store.Available: 0},
	}
	if len(o.Queues) != 3 {
		t.Fatalf("queues %+v, want email, reports and webhook", o.Queues)
	}
	for _, q := range o.Queues {
		for st, n := range want[q.Queue] {
			if q.Counts[st] != n {
				t.Errorf("queue %s status %s: %d, want %d (all: %v)", q.Queue, st, q.Counts[st], n, q.Counts)
			}
		}
	}
	if o.Completed != f.completed || o.Failed != f.failedN || o.FailureRate != float64(f.failedN)/float64(f.completed+f.failedN) {
		t.Errorf("window: completed %d failed %d rate %v, want %d and %d", o.Completed, o.Failed, o.FailureRate, f.completed, f.failedN)
	}
	if len(o.Throughput) != 60 {
		t.Errorf("results fell in %d distinct seconds, want 60 (59 of history and now)", len(o.Throughput))
	}
	if q := o.Queues[0]; q.Queue != "email" || q.OldestReadyAgeSec == nil {
		t.Errorf("email has available jobs but no oldest ready age: %+v", q)
	}
	if q := o.Queues[2]; q.OldestReadyAgeSec != nil {
		t.Errorf("webhook has no available job but an oldest ready age %v", *q.OldestReadyAgeSec)
	}
}

// TestJobsPagesNewestFirstWithoutGapsOrRepeats walks every page of 20 both
// ways and requires the whole table, in descending id order, each row once.
func TestJobsPagesNewestFirstWithoutGapsOrRepeats(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t, "")
	var seen []ulid.ULID
	var pages []JobList
	url := srv.URL + "/api/jobs?limit=20"
	for range 50 {
		var l JobList
		getJSON(t, url, &l)
		pages = append(pages, l)
		for _, j := range l.Jobs {
			seen = append(seen, j.ID)
		}
		if l.Older.IsZero() {
			break
		}
		url = srv.URL + "/api/jobs?limit=20&before=" + l.Older.String()
	}
	if len(seen) != f.jobs {
		t.Fatalf("paged through %d jobs, the table has %d", len(seen), f.jobs)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Compare(seen[i-1]) >= 0 {
			t.Fatalf("not newest first at %d: %s after %s", i, seen[i], seen[i-1])
		}
	}
	// Back from the last page with its Newer cursor gives the page before.
	last := pages[len(pages)-1]
	var back JobList
	getJSON(t, srv.URL+"/api/jobs?limit=20&after="+last.Newer.String(), &back)
	if got, want := idList(back.Jobs), idList(pages[len(pages)-2].Jobs); got != want {
		t.Errorf("newer page of the last page = %s, want %s", got, want)
	}
}

func idList(js []Attempt) string {
	var s []string
	for _, j := range js {
		s = append(s, j.ID.String())
	}
	return strings.Join(s, ",")
}

func TestJobsFilterByQueueStatusAndText(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t, "")
	var l JobList
	getJSON(t, srv.URL+"/api/jobs?queue=webhook&status=failed", &l)
	if len(l.Jobs) != 2 {
		t.Errorf("failed webhook jobs: %d, want 2", len(l.Jobs))
	}
	getJSON(t, srv.URL+"/api/jobs?status=running&worker="+f.worker.String(), &l)
	if len(l.Jobs) != 4 {
		t.Errorf("jobs running on the fixture's worker: %d, want 4", len(l.Jobs))
	}
	getJSON(t, srv.URL+"/api/jobs?q=later", &l)
	if len(l.Jobs) != 1 || l.Jobs[0].Status != store.Scheduled {
		t.Errorf("text 'later': %+v, want the one scheduled email job", l.Jobs)
	}
	getJSON(t, srv.URL+"/api/jobs?q="+f.running.String(), &l)
	if len(l.Jobs) != 1 || l.Jobs[0].ID != f.running {
		t.Errorf("search by id: %+v", l.Jobs)
	}
	getJSON(t, srv.URL+"/api/jobs?q=50%25_", &l)
	if len(l.Jobs) != 0 {
		t.Errorf("LIKE wildcards in the text matched %d jobs", len(l.Jobs))
	}
	resp, err := http.Get(srv.URL + "/api/jobs?status=bogus")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("unknown status: %s, want 400", resp.Status)
	}
}

func TestJobDetailShowsTheChainAndHidesSecrets(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t, "")
	var d JobDetail
	getJSON(t, srv.URL+"/api/jobs/"+f.retry.String(), &d)
	if len(d.Attempts) != 2 || d.Attempts[0].ID != f.retried || d.Attempts[1].ID != f.retry {
		t.Fatalf("attempts %+v, want %s then %s", d.Attempts, f.retried, f.retry)
	}
	if d.Attempts[0].StartedBy != f.worker || d.Attempts[0].Status != store.Failed {
		t.Errorf("first attempt %+v, want failed, run by %s", d.Attempts[0], f.worker)
	}
	resp, err := http.Get(srv.URL + "/jobs/" + f.failed.String())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	if strings.Contains(string(page), webhookSecret) {
		t.Errorf("the job page shows the webhook password:\n%s", page)
	}
	if !strings.Contains(string(page), "hooks.example.com") {
		t.Errorf("the job page lost the webhook host")
	}
	resp, err = http.Get(srv.URL + "/api/jobs/" + ulid.Make().String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown job: %s, want 404", resp.Status)
	}
}

func TestJobDetailShowsTheOutputWithoutSecrets(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t, "")
	var d JobDetail
	getJSON(t, srv.URL+"/api/jobs/"+f.output.String(), &d)
	if !strings.Contains(d.Job.Output, `"sent": true`) || strings.Contains(d.Job.Output, webhookSecret) {
		t.Errorf("output %q: want the recorded output with its token hidden", d.Job.Output)
	}
	resp, err := http.Get(srv.URL + "/jobs/" + f.output.String())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(page), `id="output"`) || strings.Contains(string(page), webhookSecret) {
		t.Errorf("the job page does not show the output, or shows its token:\n%s", page)
	}
}
