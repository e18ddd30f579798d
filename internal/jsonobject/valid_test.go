package jsonobject

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// surelyValid may only say valid of what json.Valid says valid, and
// must say it of plain text; a fixed-seed mutation of each document
// tries the cases around them.
func TestSurelyValidAgreesWithTheScanner(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `""`, `0`, `-0.5e+10`, `1E3`, `true`, `false`, `null`, ` {"a" : [1, -2.0, "x\"\\\/\b\f\n\r\t\u00aF"], "b":{}} `,
		`{"tickwork_encrypted":{"key":"k1","nonce":"AQ==","data":"Ag=="}}`, `{"account":"a01ARZ3NDEKTSV4RRFFQ69G5FAV"}`,
		`{"a":{"b":[[[{"c":null}]]]}}`, `"é"`, `01`, `1.`, `.5`, `-`, `1e`, `+1`, `{"a"}`, `{"a":1,}`, `[1,]`, `[1 2]`,
		`"\u12"`, `"\x"`, "\"\t\"", `{"a":1}}`, `tru`, `nul`, `{"a":1`, `"`, ``, ` `, `[` + strings.Repeat(`[`, 70) + strings.Repeat(`]`, 71),
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	const alphabet = "{}[]\":,\\ -+.0123456789eEtrufalsn\t\nxu\x01\xc3"
	for _, doc := range docs {
		check(t, doc)
		for range 300 {
			b := []byte(doc)
			for range 1 + rnd.IntN(3) {
				switch i := rnd.IntN(len(b) + 1); {
				case i == len(b) || rnd.IntN(3) == 0:
					b = append(b[:i:i], append([]byte{alphabet[rnd.IntN(len(alphabet))]}, b[i:]...)...)
				case rnd.IntN(2) == 0:
					b = append(b[:i:i], b[i+1:]...)
				default:
					b[i] = alphabet[rnd.IntN(len(alphabet))]
				}
			}
			check(t, string(b))
		}
	}
}

func check(t *testing.T, doc string) {
	t.Helper()
	sure, scanner := surelyValid([]byte(doc)), json.Valid([]byte(doc))
	if sure && !scanner {
		t.Errorf("surelyValid(%q) = true; json.Valid says false", doc)
	}
	if scanner && !sure && !strings.ContainsFunc(doc, func(r rune) bool { return r >= 0x80 }) && strings.Count(doc, "[") < maxDepth {
		t.Errorf("surelyValid(%q) = false for plain valid text", doc)
	}
	if valid([]byte(doc)) != scanner {
		t.Errorf("valid(%q) = %v; json.Valid says %v", doc, !scanner, scanner)
	}
}
