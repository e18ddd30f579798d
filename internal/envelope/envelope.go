// Package envelope is the stored form of an encrypted value: the one text
// the encryption package writes and the console, the CLI and the property
// checker recognise without holding a key (props imports nothing it
// checks, so the format lives here, apart from the cipher).
package envelope

import (
	"bytes"
	"encoding/json"
)

// Field is the envelope's only member: {"tickwork_encrypted":{...}}.
const Field = "tickwork_encrypted"

// Shown is what a page or the CLI prints in place of an encrypted value.
const Shown = "encrypted"

// Sealed is an envelope's content: the id of the key that sealed it, the
// AES-GCM nonce and the ciphertext with its tag (both base64 in JSON).
type Sealed struct {
	Key   string `json:"key"`
	Nonce []byte `json:"nonce"`
	Data  []byte `json:"data"`
}

// Wrap returns s as a stored JSON value: the encoder's text, written by
// appendWrapped when it can.
func Wrap(s Sealed) json.RawMessage {
	if b, ok := appendWrapped(nil, s); ok {
		return b
	}
	b, _ := json.Marshal(map[string]Sealed{Field: s}) // a struct of strings and bytes always encodes
	return b
}

// Parse returns the content of raw if raw is an envelope: an object whose
// only member is Field, holding a key id. PostgreSQL's jsonb may have
// reordered or respaced it; any JSON spelling is accepted.
func Parse(raw []byte) (Sealed, bool) {
	if !bytes.Contains(raw, []byte(Field)) { // most values: spare the decoder
		return Sealed{}, false
	}
	if s, ok := parseWrapped(raw); ok {
		return s, true
	}
	return decodeEnvelope(raw)
}

// decodeEnvelope is Parse by the JSON decoder, for any spelling.
func decodeEnvelope(raw []byte) (Sealed, bool) {
	var outer map[string]json.RawMessage
	if json.Unmarshal(raw, &outer) != nil || len(outer) != 1 {
		return Sealed{}, false
	}
	inner, ok := outer[Field]
	var s Sealed
	if !ok || json.Unmarshal(inner, &s) != nil || s.Key == "" {
		return Sealed{}, false
	}
	return s, true
}

// Is reports whether raw is an envelope.
func Is(raw []byte) bool {
	_, ok := Parse(raw)
	return ok
}

// Hide returns a JSON document with what is encrypted in it replaced by
// the JSON string Shown: the whole document if it is an envelope, else
// the values of its top-level members that are (a job's metadata). A
// document with nothing encrypted comes back as it is.
func Hide(raw []byte) []byte {
	if !bytes.Contains(raw, []byte(Field)) {
		return raw
	}
	shown, _ := json.Marshal(Shown)
	if Is(raw) {
		return shown
	}
	var entries map[string]json.RawMessage
	if json.Unmarshal(raw, &entries) != nil {
		return raw
	}
	for k, v := range entries {
		if Is(v) {
			entries[k] = shown
		}
	}
	b, _ := json.Marshal(entries) // decoded from JSON: encodes again
	return b
}
