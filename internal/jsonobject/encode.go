package jsonobject

import (
	"encoding/json"
	"maps"
	"slices"
)

// Encode returns json.Marshal(m) and its error. When every key and value
// is already in the encoder's form (keys of printable ASCII it does not
// escape; values valid, compact, of ASCII without <, > or &), it writes
// them itself in the encoder's order, by key; else it asks the encoder.
func Encode(m map[string]json.RawMessage) ([]byte, error) {
	if m == nil {
		return json.Marshal(m)
	}
	keys := slices.Sorted(maps.Keys(m))
	n := 2
	for _, k := range keys {
		if !plainKey(k) || !plainValue(m[k]) {
			return json.Marshal(m)
		}
		n += len(k) + len(m[k]) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(append(b, '"'), k...), '"', ':'), m[k]...)
	}
	return append(b, '}'), nil
}

// plainKey reports whether the encoder writes k as it is, in quotes.
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// plainValue reports whether the encoder writes v as it is: valid JSON
// without space outside its strings, nor a byte it would escape.
func plainValue(v json.RawMessage) bool {
	if len(v) == 0 || !json.Valid(v) {
		return false
	}
	inString := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 0x80 || c == '<' || c == '>' || c == '&':
			return false
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}
