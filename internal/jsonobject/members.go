// Package jsonobject reads the members of a JSON object as
// json.Unmarshal into a map[string]json.RawMessage does, without the
// decoder's reflection where it can: the simulator seals and opens a
// job's metadata, and checks it sealed, many times a run.
package jsonobject

import (
	"bytes"
	"encoding/json"
)

// Members returns what json.Unmarshal(raw, &m) leaves in a nil
// map[string]json.RawMessage m, and its error. An object whose keys
// are plain ASCII without escapes is split by hand once json.Valid
// passes it; anything else goes to the decoder.
func Members(raw []byte) (map[string]json.RawMessage, error) {
	if m, ok := split(raw); ok {
		return m, nil
	}
	var m map[string]json.RawMessage
	err := json.Unmarshal(raw, &m)
	return m, err
}

// split reads a valid JSON object's members, each value a copy of its
// text; ok is false for text that is not one, or a key with an escape
// or a byte outside ASCII (the decoder unescapes and repairs those).
func split(raw []byte) (map[string]json.RawMessage, bool) {
	i := skipSpace(raw, 0)
	if i == len(raw) || raw[i] != '{' || !json.Valid(raw) {
		return nil, false
	}
	m := map[string]json.RawMessage{}
	i = skipSpace(raw, i+1)
	if raw[i] == '}' {
		return m, true
	}
	for {
		// raw is valid: a key's opening quote is here, its colon after it.
		end := i + 1
		for ; raw[end] != '"'; end++ {
			if c := raw[end]; c == '\\' || c >= 0x80 {
				return nil, false
			}
		}
		key := string(raw[i+1 : end])
		start := skipSpace(raw, skipSpace(raw, end+1)+1)
		stop := valueEnd(raw, start)
		m[key] = bytes.Clone(raw[start:stop])
		i = skipSpace(raw, stop)
		if raw[i] == '}' {
			return m, true
		}
		i = skipSpace(raw, i+1) // past the comma
	}
}

// valueEnd returns where the value that starts at i in valid JSON ends.
func valueEnd(raw []byte, i int) int {
	depth := 0
	for ; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			i = stringEnd(raw, i)
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
		if depth == 0 && (raw[i] == '"' || raw[i] == '}' || raw[i] == ']') {
			return i + 1
		}
	}
	return i
}

// stringEnd returns the index of the closing quote of the string whose
// opening quote is at i.
func stringEnd(raw []byte, i int) int {
	for i++; raw[i] != '"'; i++ {
		if raw[i] == '\\' {
			i++
		}
	}
	return i
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}
