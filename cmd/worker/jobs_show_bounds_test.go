package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/internal/redact"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// jobs show prints a payload nested thousands deep in bounded space: the
// text form cut at maxShownJSON with the command that prints the whole,
// the JSON form whole but with its indentation capped.
func TestJobsShowBoundsADeepPayload(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	const half = 4995
	doc := strings.Repeat(`{"a":[`, half) + `1` + strings.Repeat(`]}`, half)
	id := insertJobs(t, st, "deep", doc)[0]
	code, stdout, stderr := runCLI(t, nil, cmdArgs([]string{"jobs", "show"}, db, id.String())...)
	if code != exitOK || len(stdout) > 2*maxShownJSON || !strings.Contains(stdout, "jobs show -format json "+id.String()+" prints the whole") {
		t.Errorf("jobs show of a %d-deep payload: exit %d, %d bytes, want at most %d with the way to the whole; stderr:\n%s", 2*half, code, len(stdout), 2*maxShownJSON, stderr)
	}
	code, stdout, _ = runCLI(t, nil, cmdArgs([]string{"jobs", "show", "-format", "json"}, db, id.String())...)
	var shown struct {
		Job jobJSON `json:"job"`
	}
	if err := json.Unmarshal([]byte(stdout), &shown); code != exitOK || err != nil {
		t.Fatalf("jobs show -format json: exit %d, %v", code, err)
	}
	// The payload twice (the job and its one attempt), four lines a level
	// pair, each at most the capped indentation and a few characters.
	if limit := 2*4*half*(2*redact.MaxIndentDepth+10) + 4096; len(stdout) > limit {
		t.Errorf("jobs show -format json printed %d bytes for a %d-byte payload, want at most %d", len(stdout), len(doc), limit)
	}
	if got := strings.Join(strings.Fields(string(shown.Job.Payload)), ""); got != doc {
		t.Errorf("jobs show -format json changed the payload")
	}
}

// jobs show and jobs list hide what the redaction rule names, in text and
// JSON, and keep the rest.
func TestJobsShowAndListHideSecrets(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	doc := `{"pwd":"pwd-s3cret","jwt":"jwt-s3cret","creds":{"user":"creds-s3cret"},"X-Api-Key":"xak-s3cret",
		"dsn":"host=db password=dsn-s3cret","hook":"https://u:url-s3cret@h.example/x","monkey":"banana"}`
	id := insertJobs(t, st, "secrets", doc)[0]
	for _, args := range [][]string{
		cmdArgs([]string{"jobs", "show"}, db, id.String()),
		cmdArgs([]string{"jobs", "show", "-format", "json"}, db, id.String()),
		cmdArgs([]string{"jobs", "list", "-format", "json"}, db),
	} {
		code, stdout, stderr := runCLI(t, nil, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		for _, s := range []string{"pwd-s3cret", "jwt-s3cret", "creds-s3cret", "xak-s3cret", "dsn-s3cret", "url-s3cret"} {
			if strings.Contains(stdout, s) {
				t.Errorf("%v shows %s:\n%s", args[:3], s, stdout)
			}
		}
		if !strings.Contains(stdout, "banana") || !strings.Contains(stdout, "host=db") {
			t.Errorf("%v lost what is no secret:\n%s", args[:3], stdout)
		}
	}
}
