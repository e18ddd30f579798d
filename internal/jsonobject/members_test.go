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
