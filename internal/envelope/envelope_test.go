package envelope

import (
	"encoding/json"
	"testing"
)

// Parse takes an envelope in any JSON spelling (jsonb respaces and
// reorders it) and nothing else that mentions the field.
func TestParseRecognisesOnlyEnvelopes(t *testing.T) {
	wrapped := string(Wrap(Sealed{Key: "k1", Nonce: []byte{1}, Data: []byte{2}}))
	cases := map[string]bool{
		wrapped: true,
		`{"tickwork_encrypted": {"data": "Ag==", "key": "k1", "nonce": "AQ=="}}`: true,
		`{"tickwork_encrypted":{"key":"k1"},"other":1}`:                          false,
		`{"tickwork_encrypted":{"nonce":"AQ=="}}`:                                false,
		`{"tickwork_encrypted":"k1"}`:                                            false,
		`"tickwork_encrypted"`:                                                   false,
		`{"n":1}`:                                                                false,
	}
	for doc, want := range cases {
		if s, got := Parse([]byte(doc)); got != want || (got && s.Key != "k1") {
			t.Errorf("Parse(%s) = %+v, %v; want %v", doc, s, got, want)
		}
	}
}

// The wrapped form's reader must say what the JSON decoder says of every
// text, and read every value Wrap writes.
func TestWrappedFormReadsAsTheDecoderDoes(t *testing.T) {
	docs := []string{
		string(Wrap(Sealed{Key: "k1", Nonce: []byte{1, 2, 3}, Data: []byte("sealed bytes")})),
		string(Wrap(Sealed{Key: `k"1`, Nonce: []byte{1}, Data: []byte{2}})),
		string(Wrap(Sealed{Key: "k1"})),
		`{"tickwork_encrypted":{"key":"k1","nonce":"AQ==","data":"Ag=="}}`,
		`{"tickwork_encrypted":{"key":"k1","nonce":"AQ==","data":"Ag=="}} `,
		`{"tickwork_encrypted":{"key":"k1","nonce":"AQ=","data":"Ag=="}}`,
		`{"tickwork_encrypted":{"key":"","nonce":"AQ==","data":"Ag=="}}`,
		`{"tickwork_encrypted":{"key":"k\u0031","nonce":"AQ==","data":"Ag=="}}`,
		`{"tickwork_encrypted":{"key":"k1","nonce":"AQ==","data":"Ag=="},"x":1}`,
		`{"tickwork_encrypted":{"key":"k1","data":"Ag==","nonce":"AQ=="}}`,
	}
	for _, doc := range docs {
		fast, fastOK := parseWrapped([]byte(doc))
		slow, slowOK := decodeEnvelope([]byte(doc))
		if fastOK && (!slowOK || fast.Key != slow.Key || string(fast.Nonce) != string(slow.Nonce) || string(fast.Data) != string(slow.Data)) {
			t.Errorf("%s: wrapped form read %+v, the decoder %+v (%v)", doc, fast, slow, slowOK)
		}
		if got, ok := Parse([]byte(doc)); ok != slowOK || got.Key != slow.Key {
			t.Errorf("Parse(%s) = %+v, %v; the decoder says %+v, %v", doc, got, ok, slow, slowOK)
		}
	}
	if _, ok := parseWrapped(Wrap(Sealed{Key: "k2", Nonce: []byte{9}, Data: []byte{8}})); !ok {
		t.Error("the wrapped form's reader refused what Wrap wrote")
	}
}

// Wrap writes by hand what the JSON encoder writes, byte for byte: stored
// values and the simulator's traces depend on the text.
func TestWrapWritesTheEncodersText(t *testing.T) {
	keys := []string{"k1", "key-2.old_x", `k"1`, `k\1`, "k<1>", "k&1", "k\x7f", "ké", "k\n", " ", ""}
	bytesOf := [][]byte{nil, {}, {0}, {1, 2, 3}, []byte("sealed bytes, longer than a block of base64")}
	for _, k := range keys {
		for _, n := range bytesOf {
			for _, d := range bytesOf {
				s := Sealed{Key: k, Nonce: n, Data: d}
				want, _ := json.Marshal(map[string]Sealed{Field: s})
				if got := Wrap(s); string(got) != string(want) {
					t.Errorf("Wrap(%+v) = %s, the encoder writes %s", s, got, want)
				}
			}
		}
	}
}
