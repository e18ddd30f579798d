package console

import (
	"io"
	"net/http"
	"strings"
	"testing"

	guuid "github.com/google/uuid"
)

// The console takes a job id in the UUID form PostgreSQL shows, as the
// command line does, on the job's page and in the API.
func TestJobPathTakesTheUUIDForm(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t, "")
	for _, path := range []string{"/jobs/", "/api/jobs/"} {
		resp, err := http.Get(srv.URL + path + guuid.UUID(f.failed).String())
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), f.failed.String()) {
			t.Errorf("GET %s<UUID of %s>: %s, want the job:\n%.300s", path, f.failed, resp.Status, body)
		}
	}
}
