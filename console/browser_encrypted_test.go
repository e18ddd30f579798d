package console

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/encryption"
	"github.com/tickwork/tickwork/internal/browser"
	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store"
)

// clearTexts are what the encrypted job carries; no page may show them.
const (
	clearCard   = "4111-1111"
	clearHolder = "Ada Lovelace"
	clearOutput = "receipt-77"
)

// TestEncryptedJobInBrowser: the console holds no key, so a job's sealed
// payload, metadata value and output show as "encrypted" on its page and
// through the API, and neither the clear texts nor the envelopes show.
func TestEncryptedJobInBrowser(t *testing.T) {
	long.Test(t, "drives the console in Chromium")
	f := newFixture(t)
	id := f.insertEncrypted(t)
	srv := f.server(t, adminToken)
	ctx := browser.New(t)
	browser.Do(t, ctx, "open the encrypted job", chromedp.Navigate(srv.URL+"/jobs/"+id.String()), chromedp.WaitVisible(chromedp.CSS("#payload")))
	text := func(sel string) string {
		return browser.Eval[string](t, ctx, `document.querySelector(`+browser.JS(sel)+`).textContent.trim()`)
	}
	if got := text("#payload"); got != "encrypted" {
		t.Errorf("the payload shows %q, want encrypted", got)
	}
	if got := text("#output"); got != "encrypted" {
		t.Errorf("the output shows %q, want encrypted", got)
	}
	if got := text("#metadata"); !strings.Contains(got, `"holder": "encrypted"`) || !strings.Contains(got, `"region": "eu"`) {
		t.Errorf("the metadata shows %q, want holder encrypted and region in clear", got)
	}
	html := browser.Eval[string](t, ctx, `document.documentElement.outerHTML`)
	for _, doc := range []string{"payload", "metadata", "output"} {
		resp, err := http.Get(srv.URL + "/api/jobs/" + id.String() + "/" + doc)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		html += string(body)
		if !strings.Contains(string(body), `"encrypted"`) {
			t.Errorf("/api/jobs/…/%s = %s, want encrypted", doc, body)
		}
	}
	for _, leak := range []string{clearCard, clearHolder, clearOutput, "tickwork_encrypted"} {
		if strings.Contains(html, leak) {
			t.Errorf("the console shows %q", leak)
		}
	}
}

// insertEncrypted stores a job of queue email sealed as worker.Encrypted
// seals it, completed with a sealed output, and returns its id.
func (f *fixture) insertEncrypted(t *testing.T) ulid.ULID {
	t.Helper()
	ring, err := encryption.NewRing(encryption.Key{ID: "k1", Secret: bytes.Repeat([]byte{3}, encryption.KeySize)})
	if err != nil {
		t.Fatal(err)
	}
	payload, meta, err := ring.SealJob(json.RawMessage(`{"card":"`+clearCard+`"}`), json.RawMessage(`{"holder":"`+clearHolder+`","region":"eu"}`), []string{"holder"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := ring.SealOutput(payload, json.RawMessage(`{"receipt":"`+clearOutput+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := f.insertTwo(t, func(a, b ulid.ULID) []store.NewJob {
		return []store.NewJob{{ID: a, Queue: "encrypted", Payload: payload, Metadata: meta}}
	})
	err = f.st.InTx(t.Context(), func(tx store.Tx) error {
		if _, err := tx.Reserve(t.Context(), f.worker, []string{"encrypted"}, 1); err != nil {
			return err
		}
		_, err := tx.CompleteJobs(t.Context(), store.Completion{Worker: f.worker, IDs: []ulid.ULID{id}, Outputs: []json.RawMessage{out}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}
