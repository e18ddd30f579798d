package encryption

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/tickwork/tickwork/internal/envelope"
)

// Seal returns clear sealed with the newest key as a stored JSON value
// (an envelope: {"tickwork_encrypted":{"key":...,"nonce":...,"data":...}}).
// field names what clear is ("payload", "output", "metadata x"); it is
// authenticated with it, so a value opens only as the field it was sealed
// for.
func (r *Ring) Seal(field string, clear json.RawMessage) (json.RawMessage, error) {
	if r == nil {
		return nil, fmt.Errorf("encryption: seal the %s: no key ring", field)
	}
	id := r.Newest()
	aead := r.aeads[id]
	nonce := make([]byte, aead.NonceSize())
	r.mu.Lock()
	_, err := io.ReadFull(r.nonces, nonce)
	r.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("encryption: seal the %s with key %q: draw a nonce: %w", field, id, err)
	}
	data := aead.Seal(nil, nonce, clear, []byte(field))
	return envelope.Wrap(envelope.Sealed{Key: id, Nonce: nonce, Data: data}), nil
}

// Open returns the clear text of sealed, a value Seal returned for field,
// and the id of the key that opened it. A value that is no envelope comes
// back as it is, with key "". It fails, naming the key id, when the ring
// lacks the value's key or the value does not open with it (another
// secret under the same id, or a changed value).
func (r *Ring) Open(field string, sealed json.RawMessage) (clear json.RawMessage, key string, err error) {
	s, ok := envelope.Parse(sealed)
	if !ok {
		return sealed, "", nil
	}
	if r == nil {
		return nil, s.Key, fmt.Errorf("%s encrypted with key %q, and this worker holds no encryption keys", field, s.Key)
	}
	aead, ok := r.aeads[s.Key]
	if !ok {
		return nil, s.Key, fmt.Errorf("%s encrypted with key %q, which this worker does not hold (it holds %v)", field, s.Key, r.ids)
	}
	if len(s.Nonce) != aead.NonceSize() {
		return nil, s.Key, fmt.Errorf("%s encrypted with key %q has a nonce of %d bytes, want %d", field, s.Key, len(s.Nonce), aead.NonceSize())
	}
	clear, err = aead.Open(nil, s.Nonce, s.Data, []byte(field))
	if err != nil {
		return nil, s.Key, fmt.Errorf("%s encrypted with key %q does not open with this worker's key of that id (a different secret, or an altered value)", field, s.Key)
	}
	return clear, s.Key, nil
}
