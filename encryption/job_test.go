package encryption

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/internal/envelope"
)

func TestSealJobOpensBackToTheClearJob(t *testing.T) {
	r := ring(t, Key{ID: "k1", Secret: secret(1)})
	payload := json.RawMessage(`{"card":"4111"}`)
	meta := json.RawMessage(`{"account":"acme","region":"eu"}`)
	sp, sm, err := r.SealJob(payload, meta, []string{"account"})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sp, []byte("4111")) || bytes.Contains(sm, []byte("acme")) || !bytes.Contains(sm, []byte(`"region":"eu"`)) {
		t.Fatalf("sealed job: payload %s, metadata %s", sp, sm)
	}
	if got := string(envelope.Hide(sm)); got != `{"account":"encrypted","region":"eu"}` {
		t.Errorf("Hide = %s", got)
	}
	o, err := r.OpenJob(sp, sm)
	if err != nil {
		t.Fatal(err)
	}
	if string(o.Payload) != string(payload) || string(o.Metadata) != string(meta) || strings.Join(o.Keys, ",") != "k1,k1" {
		t.Fatalf("OpenJob = %s, %s, keys %v", o.Payload, o.Metadata, o.Keys)
	}
	if _, _, err := r.SealJob(payload, meta, []string{"acount"}); err == nil || !strings.Contains(err.Error(), `"acount"`) {
		t.Errorf("a misspelt metadata key: %v", err)
	}
}

func TestOpenJobFailsOnASealedMetadataValueItCannotOpen(t *testing.T) {
	r := ring(t, Key{ID: "k1", Secret: secret(1)})
	_, sm, _ := r.SealJob(json.RawMessage(`1`), json.RawMessage(`{"account":"acme"}`), []string{"account"})
	other := ring(t, Key{ID: "k2", Secret: secret(2)})
	_, err := other.OpenJob(json.RawMessage(`1`), sm)
	if err == nil || !strings.Contains(err.Error(), `metadata value account encrypted with key "k1"`) {
		t.Fatalf("OpenJob = %v", err)
	}
}

func TestSealOutputSealsOnlyTheOutputOfASealedPayload(t *testing.T) {
	r := ring(t, Key{ID: "k1", Secret: secret(1)})
	sp, _ := r.Seal(PayloadField, json.RawMessage(`1`))
	out := json.RawMessage(`{"receipt":"r-9"}`)
	if got, _ := r.SealOutput(json.RawMessage(`1`), out); string(got) != string(out) {
		t.Errorf("a clear job's output became %s", got)
	}
	got, err := r.SealOutput(sp, out)
	if err != nil || !envelope.Is(got) {
		t.Fatalf("a sealed job's output = %s, %v", got, err)
	}
	if clear, _, _ := r.Open(OutputField, got); string(clear) != string(out) {
		t.Errorf("the output opened as %s", clear)
	}
	if got, _ := r.SealOutput(sp, nil); got != nil {
		t.Errorf("no output became %s", got)
	}
}
