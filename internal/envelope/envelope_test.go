package envelope

import "testing"

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
