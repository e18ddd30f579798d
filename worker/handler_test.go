package worker

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

type textPayload struct{ S string }

func (p *textPayload) UnmarshalText([]byte) error { return errors.New("text only") }

type jsonPayload struct{ Set bool }

func (p *jsonPayload) UnmarshalJSON([]byte) error { p.Set = true; return nil }

// TestEmptyObjectIsZero checks the decoder shortcut against the decoder:
// wherever it skips decoding {}, decoding {} succeeds and leaves T zero.
func TestEmptyObjectIsZero(t *testing.T) {
	check := func(name string, skip bool, decode func() (zero bool, err error)) {
		t.Helper()
		zero, err := decode()
		if want := err == nil && zero; skip != want {
			t.Errorf("%s: shortcut %v, but decoding {} gives zero=%v err=%v", name, skip, zero, err)
		}
	}
	check("struct{}", emptyObjectIsZero[struct{}](), decodeEmpty[struct{}])
	check("struct with fields", emptyObjectIsZero[struct{ A int }](), decodeEmpty[struct{ A int }])
	check("map", emptyObjectIsZero[map[string]int](), decodeEmpty[map[string]int])
	check("pointer", emptyObjectIsZero[*struct{}](), decodeEmpty[*struct{}])
	check("text unmarshaler", emptyObjectIsZero[textPayload](), decodeEmpty[textPayload])
	check("json unmarshaler", emptyObjectIsZero[jsonPayload](), decodeEmpty[jsonPayload])
	if !emptyObjectIsZero[struct{ A int }]() {
		t.Error("a plain struct should take the shortcut")
	}
}

func decodeEmpty[T any]() (bool, error) {
	var v T
	err := json.Unmarshal([]byte("{}"), &v)
	return reflect.ValueOf(&v).Elem().IsZero(), err
}
