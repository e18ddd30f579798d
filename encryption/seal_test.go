package encryption

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/envelope"
)

// secret returns a key's secret of repeated b, distinct per b.
func secret(b byte) []byte { return bytes.Repeat([]byte{b}, KeySize) }

func ring(t *testing.T, keys ...Key) *Ring {
	t.Helper()
	r, err := NewRing(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return r.WithNonces(clockrng.NewRand(1))
}

func TestSealOpensWithTheKeyItNames(t *testing.T) {
	old := ring(t, Key{ID: "k1", Secret: secret(1)})
	rotated := ring(t, Key{ID: "k1", Secret: secret(1)}, Key{ID: "k2", Secret: secret(2)})
	clear := json.RawMessage(`{"card":"4111"}`)
	sealed, err := old.Seal(PayloadField, clear)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("4111")) || !envelope.Is(sealed) {
		t.Fatalf("sealed value %s is not an envelope without the clear text", sealed)
	}
	got, key, err := rotated.Open(PayloadField, sealed)
	if err != nil || key != "k1" || string(got) != string(clear) {
		t.Fatalf("Open after rotation = %s, %q, %v; want the clear text with k1", got, key, err)
	}
	fresh, _ := rotated.Seal(PayloadField, clear)
	if s, _ := envelope.Parse(fresh); s.Key != "k2" {
		t.Fatalf("a new value was sealed with %q, want the newest key k2", s.Key)
	}
}

func TestOpenFailsNamingTheKeyOnly(t *testing.T) {
	k1 := ring(t, Key{ID: "k1", Secret: secret(1)})
	sealed, _ := k1.Seal(PayloadField, json.RawMessage(`"x"`))
	impostor := ring(t, Key{ID: "k1", Secret: secret(9)})
	other := ring(t, Key{ID: "k2", Secret: secret(2)})
	cases := []struct {
		name string
		r    *Ring
		want string
	}{
		{"no ring", nil, `payload encrypted with key "k1", and this worker holds no encryption keys`},
		{"key missing", other, `payload encrypted with key "k1", which this worker does not hold (it holds [k2])`},
		{"another secret", impostor, `payload encrypted with key "k1" does not open`},
	}
	for _, c := range cases {
		_, key, err := c.r.Open(PayloadField, sealed)
		if err == nil || !strings.Contains(err.Error(), c.want) || key != "k1" {
			t.Errorf("%s: Open = key %q, %v; want %q", c.name, key, err, c.want)
		}
	}
	if _, _, err := k1.Open(OutputField, sealed); err == nil {
		t.Errorf("a payload opened as an output: the field is not authenticated")
	}
}

func TestOpenPassesClearValuesThrough(t *testing.T) {
	clear := json.RawMessage(`{"tickwork_encrypted_not":1}`)
	got, key, err := (*Ring)(nil).Open(PayloadField, clear)
	if err != nil || key != "" || string(got) != string(clear) {
		t.Fatalf("Open of a clear value = %s, %q, %v", got, key, err)
	}
}

func TestRingErrorsAndPrintsNeverShowSecrets(t *testing.T) {
	s := secret(7)
	b64 := base64.StdEncoding.EncodeToString(s)
	_, errShort := NewRing(Key{ID: "short", Secret: s[:5]})
	_, errDup := ParseRing("a:" + b64 + ",a:" + b64)
	_, errB64 := ParseRing("bad:" + b64 + "!")
	r, err := ParseRing("a:" + b64 + ", b:" + b64)
	if err != nil {
		t.Fatal(err)
	}
	printed := fmt.Sprintf("%v %+v %#v %v %#v %v %v %v", r, r, r, Key{ID: "a", Secret: s}, Key{ID: "a", Secret: s}, errShort, errDup, errB64)
	for _, leak := range []string{b64, string(s), fmt.Sprint(s), fmt.Sprintf("%x", s)} {
		if strings.Contains(printed, leak) {
			t.Fatalf("a secret shows in %q", printed)
		}
	}
	if errShort == nil || errDup == nil || errB64 == nil || r.Newest() != "b" {
		t.Fatalf("errors %v, %v, %v; newest %q (want b)", errShort, errDup, errB64, r.Newest())
	}
	if _, err := NewRing(); err == nil {
		t.Fatal("an empty ring was accepted")
	}
}
