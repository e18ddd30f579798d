package envelope

import (
	"bytes"
	"encoding/base64"
)

// The exact text Wrap writes for a key id that needs no escaping, member
// by member: parseWrapped reads it without the JSON decoder, which the
// simulator's property checks would otherwise run on every sealed row
// they look at.
var (
	wrappedHead  = []byte(`{"` + Field + `":{"key":"`)
	wrappedNonce = []byte(`","nonce":"`)
	wrappedData  = []byte(`","data":"`)
	wrappedTail  = []byte(`"}}`)
)

// appendWrapped appends s as json.Marshal writes Wrap's map, member by
// member, without the encoder's reflection (most of what sealing a value
// cost). It reports false, appending nothing, for a key id the encoder
// would escape or a nil nonce or data (null): Wrap encodes those.
func appendWrapped(b []byte, s Sealed) ([]byte, bool) {
	if s.Nonce == nil || s.Data == nil {
		return b, false
	}
	for i := 0; i < len(s.Key); i++ {
		if c := s.Key[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return b, false
		}
	}
	b = append(append(b, wrappedHead...), s.Key...)
	b = base64.StdEncoding.AppendEncode(append(b, wrappedNonce...), s.Nonce)
	b = base64.StdEncoding.AppendEncode(append(b, wrappedData...), s.Data)
	return append(b, wrappedTail...), true
}

// parseWrapped is Parse for a value in the exact form Wrap writes. It
// reports false for any other spelling, which Parse then decodes.
func parseWrapped(raw []byte) (Sealed, bool) {
	rest, ok := bytes.CutPrefix(raw, wrappedHead)
	if !ok {
		return Sealed{}, false
	}
	key, rest, ok := cutQuoted(rest, wrappedNonce)
	if !ok || len(key) == 0 || bytes.IndexByte(key, '\\') >= 0 {
		return Sealed{}, false
	}
	nonce, rest, ok := cutQuoted(rest, wrappedData)
	if !ok {
		return Sealed{}, false
	}
	data, rest, ok := cutQuoted(rest, wrappedTail)
	if !ok || len(rest) != 0 {
		return Sealed{}, false
	}
	s := Sealed{Key: string(key)}
	if s.Nonce, ok = decode64(nonce); !ok {
		return Sealed{}, false
	}
	if s.Data, ok = decode64(data); !ok {
		return Sealed{}, false
	}
	return s, true
}

// cutQuoted splits b at its first double quote, which must begin sep: it
// returns the text before the quote and the text after sep.
func cutQuoted(b, sep []byte) (before, after []byte, ok bool) {
	i := bytes.IndexByte(b, '"')
	if i < 0 || !bytes.HasPrefix(b[i:], sep) {
		return nil, nil, false
	}
	return b[:i], b[i+len(sep):], true
}

// decode64 decodes standard base64, as encoding/json writes a []byte
// (null, for a nil slice, is not in the wrapped form: the decoder takes
// it).
func decode64(b []byte) ([]byte, bool) {
	out := make([]byte, base64.StdEncoding.DecodedLen(len(b)))
	n, err := base64.StdEncoding.Decode(out, b)
	return out[:n], err == nil
}
