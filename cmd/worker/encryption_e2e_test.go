package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/envelope"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestEncryptionEndToEnd runs the binary with and without the key ring.
func TestEncryptionEndToEnd(t *testing.T) {
	runEndToEnd(t, []e2eCase{{"EncryptedJobs", testEncryptedJobs}})
}

// An encrypted job's payload is stored sealed and shown as "encrypted"; a
// worker without its key fails the job naming the key and goes on; a
// worker with it runs the job; no process prints the key or the clear
// payload.
func testEncryptedJobs(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	hook, bodies := bodyHook(t)
	secret := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x5a}, 32))
	keys := []string{"TICKWORK_ENCRYPTION_KEYS=k0:" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 32)) + ",k1:" + secret}
	payload := fmt.Sprintf(`{"url": %q, "body": {"order": "s3cr3t-order"}}`, hook.URL)
	enqueue := func() ulid.ULID {
		p := startProcEnv(t, bin, "worker enqueue", keys, cmdArgs([]string{"enqueue"}, db, "-queue", "webhook", "-payload", payload, "-encrypt")...)
		if code := p.wait(); code != exitOK {
			t.Fatalf("enqueue -encrypt: exit %d, stderr:\n%s", code, p.stderr.String())
		}
		return ulid.MustParseStrict(strings.TrimSpace(p.stdout.String()))
	}

	first := enqueue()
	if row := getJob(t, st, first); bytes.Contains(row.Payload, []byte("s3cr3t")) || !envelope.Is(row.Payload) {
		t.Fatalf("the stored payload is not sealed: %s", row.Payload)
	}
	keyless := startProc(t, bin, "worker run (no keys)", cmdArgs([]string{"run"}, db, append(fastRun, "-max-retries", "0")...)...)
	eventually(t, "the job failed on the keyless worker", func() bool { return getJob(t, st, first).Status == store.Failed })
	if r := getJob(t, st, first).FailedReason; !strings.Contains(r, `payload encrypted with key "k1"`) {
		t.Errorf("failed reason %q does not name the key", r)
	}
	if keyless.exited() {
		t.Fatal("the keyless worker exited on a job it could not open")
	}
	keyless.signal(syscall.SIGTERM)
	if code := keyless.wait(); code != 0 {
		t.Fatalf("the keyless worker exited %d after SIGTERM", code)
	}

	second := enqueue()
	keyed := startProcEnv(t, bin, "worker run (keys)", keys, cmdArgs([]string{"run"}, db, fastRun...)...)
	if got := <-bodies; !strings.Contains(got, "s3cr3t-order") {
		t.Errorf("the webhook received %q, want the clear body", got)
	}
	eventually(t, "the job completed", func() bool { return getJob(t, st, second).Status == store.Completed })
	keyed.signal(syscall.SIGTERM)
	if code := keyed.wait(); code != 0 {
		t.Fatalf("the keyed worker exited %d after SIGTERM", code)
	}

	for _, id := range []ulid.ULID{first, second} {
		text := mustRun(t, bin, cmdArgs([]string{"jobs", "show"}, db, id.String())...)
		js := mustRun(t, bin, cmdArgs([]string{"jobs", "show"}, db, "-format", "json", id.String())...)
		if !strings.Contains(text, "payload:\n  encrypted\n") || !strings.Contains(js, `"payload": "encrypted"`) {
			t.Errorf("jobs show %s does not show the payload as encrypted:\n%s\n%s", id, text, js)
		}
		if strings.Contains(text+js, "s3cr3t") || strings.Contains(text+js, "tickwork_encrypted") {
			t.Errorf("jobs show %s shows the payload or its envelope:\n%s\n%s", id, text, js)
		}
	}
	for _, p := range []*proc{keyless, keyed} {
		if out := p.stderr.String(); strings.Contains(out, secret) || strings.Contains(out, "s3cr3t") {
			t.Errorf("%s logged a key or the clear payload:\n%s", p.name, out)
		}
	}
}
