package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

// running counts the fixture's running jobs.
func (f *fixture) runningJobs(t *testing.T) int {
	t.Helper()
	var jobs []store.Job
	err := f.st.InTx(t.Context(), func(tx store.Tx) (err error) {
		jobs, err = tx.ListJobs(t.Context(), store.JobFilter{Status: store.Running, Limit: 1000})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return len(jobs)
}

// The API's bulk needs the token, counts on dry_run=yes, acts only on
// confirm=yes, and never deletes a running job.
func TestAPIBulk(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t, adminToken)
	bulk := func(auth bool, form url.Values) (int, string, worker.BulkResult) {
		req := newRequest(t, "POST", srv.URL+"/api/jobs/bulk", form.Encode())
		if auth {
			req.Header.Set("Authorization", "Bearer "+adminToken)
		}
		status, body := do(t, req)
		var res worker.BulkResult
		if status == http.StatusOK {
			if err := json.Unmarshal([]byte(body), &res); err != nil {
				t.Fatalf("bulk answer %s: %v", body, err)
			}
		}
		return status, body, res
	}
	delRunning := url.Values{"action": {"delete"}, "status": {"running"}}
	if status, _, _ := bulk(false, delRunning); status != http.StatusUnauthorized {
		t.Errorf("bulk without the token: %d, want 401", status)
	}
	if status, body, _ := bulk(true, delRunning); status != http.StatusBadRequest || !strings.Contains(body, "confirm=yes") {
		t.Errorf("bulk without dry_run or confirm: %d %s, want 400 asking for one", status, body)
	}
	if status, body, _ := bulk(true, url.Values{"action": {"delete"}, "status": {"bogus"}, "dry_run": {"yes"}}); status != http.StatusBadRequest || !strings.Contains(body, `status \"bogus\"`) {
		t.Errorf("bulk with an unknown status: %d %s, want 400 naming it", status, body)
	}
	n := f.runningJobs(t)
	dry := url.Values{"action": {"delete"}, "status": {"running"}, "dry_run": {"yes"}}
	if status, body, res := bulk(true, dry); status != http.StatusOK || res.Matched != n || res.Done != 0 {
		t.Errorf("dry run: %d %s, want %d matched, none done", status, body, n)
	}
	delRunning.Set("confirm", "yes")
	if status, body, res := bulk(true, delRunning); status != http.StatusOK || res.Refused != n || !f.exists(t, f.running) {
		t.Errorf("confirmed delete of the running job: %d %s, want it refused and kept", status, body)
	}
	retry := url.Values{"action": {"retry"}, "status": {"failed"}, "text": {`"url"`}, "confirm": {"yes"}}
	if status, body, res := bulk(true, retry); status != http.StatusOK || res.Done < 1 || f.job(t, f.failed).NextAttemptID.IsZero() {
		t.Errorf("confirmed retry of the failed: %d %s, want the failed job retried", status, body)
	}
}

// The form's bulk needs a session and its token, shows the count first
// and acts only on the confirmation's tick.
func TestFormBulkCountsThenActsOnConfirmation(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t, adminToken)
	post := func(form url.Values, session *http.Cookie) (int, string) {
		req := newRequest(t, "POST", srv.URL+"/jobs/bulk", form.Encode())
		if session != nil {
			req.AddCookie(session)
		}
		return do(t, req)
	}
	form := url.Values{"action": {"cancel"}, "status": {"running"}}
	if status, _ := post(form, nil); status != http.StatusForbidden {
		t.Errorf("bulk form without a session: %d, want 403", status)
	}
	session := login(t, srv.URL)
	req := newRequest(t, "GET", srv.URL+"/jobs", "")
	req.AddCookie(session)
	if status, body := do(t, req); status != http.StatusOK || !strings.Contains(body, `id="bulk"`) {
		t.Errorf("jobs page with a session: %d, want the bulk form", status)
	}
	form.Set("csrf", pageCSRF(t, srv.URL, session))
	n := f.runningJobs(t)
	status, body := post(form, session)
	if status != http.StatusOK || !strings.Contains(body, fmt.Sprintf("%d jobs match now", n)) || !strings.Contains(body, `name="confirm"`) {
		t.Fatalf("bulk form's first step: %d, want the count and the confirmation\n%.500s", status, body)
	}
	if st := f.job(t, f.running).Status; st != store.Running {
		t.Fatalf("the count step changed the running job to %s", st)
	}
	form.Set("confirm", "yes")
	if status, body = post(form, session); status != http.StatusOK || !strings.Contains(body, fmt.Sprintf("%d jobs matched, %d done, 0 refused", n, n)) {
		t.Fatalf("bulk form confirmed: %d\n%.500s", status, body)
	}
	if st := f.job(t, f.running).Status; st != store.Cancelled {
		t.Errorf("the confirmed bulk cancel left the running job %s", st)
	}
}
