package jsonobject

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Members must say what the decoder says of every text: the same map,
// values byte for byte, and an error exactly when it fails.
func TestMembersReadsAsTheDecoderDoes(t *testing.T) {
	docs := []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":"x","b":{"c":[1,2,{"d":"}"}]},"e":null}`,
		`{"a" : "x\"}" , "b":[ ] , "c":true,"d":-1.5e3}`, "{\n\t\"a\":\r\n{\"b\": \"c\"}\n}\n",
		`{"a":1,"a":2}`, `{"a\u0062":1}`, `{"k\"":1}`, `{"é":1}`, "{\"\xff\":1}",
		`{"tickwork_encrypted":{"key":"k1","nonce":"AQ==","data":"Ag=="}}`,
		`{"account":{"tickwork_encrypted":{"key":"k1","nonce":"AQ==","data":"Ag=="}},"z":"<&>"}`,
		`null`, `[]`, `"s"`, `1`, ``, ` `, `{`, `{"a":}`, `{"a":1,}`, `{"a":1} x`, `{"a" 1}`, `{'a':1}`,
		`{"a":"\u00e9\n"}`, `{"a":[{"b":[[]]}],"c":"]"}`, `{"":""}`,
	}
	for _, doc := range docs {
		var want map[string]json.RawMessage
		wantErr := json.Unmarshal([]byte(doc), &want)
		got, err := Members([]byte(doc))
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Errorf("Members(%q): error %v, the decoder's %v", doc, err, wantErr)
			continue
		}
		if !reflect.DeepEqual(got, want) || (got == nil) != (want == nil) {
			t.Errorf("Members(%q) = %q, the decoder's %q", doc, got, want)
		}
	}
}

// Encode must write what the encoder writes, byte for byte, and fail
// when it fails.
func TestEncodeWritesTheEncodersText(t *testing.T) {
	maps := []map[string]json.RawMessage{
		nil, {}, {"a": json.RawMessage(`1`)}, {"b": json.RawMessage(`"x"`), "a": json.RawMessage(`{"c":[1,"} ]"]}`)},
		{"a": json.RawMessage(`{ "c": 1 }`)}, {"a": json.RawMessage(`"<&>"`)}, {"a": json.RawMessage(`"é"`)},
		{"a": json.RawMessage(`"\u2028"`)}, {"a": json.RawMessage("\"\u2028\"")}, {"a": nil}, {"a": json.RawMessage{}},
		{"a": json.RawMessage(`{`)}, {"a": json.RawMessage(`1 2`)}, {`k"`: json.RawMessage(`1`)}, {"k<": json.RawMessage(`1`)},
		{"é": json.RawMessage(`1`)}, {"": json.RawMessage(`"a b\" c"`)}, {"a": json.RawMessage(` 1`)},
		{"account": json.RawMessage(`{"tickwork_encrypted":{"key":"k1","nonce":"AQ==","data":"Ag=="}}`), "z": json.RawMessage(`null`)},
	}
	for _, m := range maps {
		want, wantErr := json.Marshal(m)
		got, err := Encode(m)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() || string(got) != string(want) {
			t.Errorf("Encode(%q) = %s, %v; the encoder's %s, %v", m, got, err, want, wantErr)
		}
	}
}
