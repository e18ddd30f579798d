// Package encryption seals job payloads, metadata values and outputs with
// AES-256-GCM under a ring of named keys, so that the jobs table holds no
// clear text of what a job carries. New values are sealed with the newest
// key; a value names the key it was sealed with, so keys can be rotated:
// add a key, and older values still open with theirs while the ring holds
// them. A key's bytes never appear in an error, a log line or a page:
// errors name its id only.
package encryption

import (
	"crypto/aes"
	"crypto/cipher"
	crand "crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/tickwork/tickwork/internal/names"
)

// KeySize is the size of a key's secret: AES-256.
const KeySize = 32

// Key is one named key of a ring. Its String hides the secret.
type Key struct {
	ID     string // what a sealed value names; a name as queues have (letters, digits, . _ -)
	Secret []byte // KeySize bytes
}

// String returns the key's id only, so that printing a Key leaks nothing.
func (k Key) String() string { return "key " + k.ID }

// GoString is String, for %#v.
func (k Key) GoString() string { return k.String() }

// Ring is a set of keys, the last one added the newest. It is safe for
// concurrent use. A nil *Ring holds no key: it opens nothing and seals
// nothing.
type Ring struct {
	ids    []string // in the order given, the newest last
	aeads  map[string]cipher.AEAD
	mu     sync.Mutex // guards nonces
	nonces io.Reader
}

// NewRing returns a ring of keys, the newest last. It fails for no key,
// a secret that is not KeySize bytes, an invalid id or one given twice;
// the error names the key's id, never its secret. Nonces come from
// crypto/rand (WithNonces replaces them in simulations).
func NewRing(keys ...Key) (*Ring, error) {
	if len(keys) == 0 {
		return nil, errors.New("encryption: a key ring needs at least one key")
	}
	r := &Ring{aeads: make(map[string]cipher.AEAD, len(keys)), nonces: crand.Reader}
	for i, k := range keys {
		if err := names.Check("key id", k.ID); err != nil {
			return nil, fmt.Errorf("encryption: key %d of %d: %w", i+1, len(keys), err)
		}
		if _, dup := r.aeads[k.ID]; dup {
			return nil, fmt.Errorf("encryption: key id %q is given twice", k.ID)
		}
		if len(k.Secret) != KeySize {
			return nil, fmt.Errorf("encryption: key %q has %d bytes, want %d (AES-256)", k.ID, len(k.Secret), KeySize)
		}
		block, err := aes.NewCipher(k.Secret)
		if err != nil {
			return nil, fmt.Errorf("encryption: key %q: %w", k.ID, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("encryption: key %q: %w", k.ID, err)
		}
		r.ids = append(r.ids, k.ID)
		r.aeads[k.ID] = aead
	}
	return r, nil
}

// ParseRing reads a ring from text such as an environment variable holds:
// "id1:base64,id2:base64", each secret KeySize bytes in standard base64,
// the newest key last. Errors name the key's place or id, never the text.
func ParseRing(s string) (*Ring, error) {
	var keys []Key
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		id, secret, ok := strings.Cut(item, ":")
		if !ok || id == "" {
			return nil, fmt.Errorf("encryption: key %d is not id:base64", i+1)
		}
		b, err := base64.StdEncoding.DecodeString(secret)
		if err != nil {
			return nil, fmt.Errorf("encryption: key %q is not standard base64", id)
		}
		keys = append(keys, Key{ID: id, Secret: b})
	}
	return NewRing(keys...)
}

// WithNonces makes r draw its nonces from src, and returns r: a seeded
// source makes a simulation's sealed values reproducible. Production keeps
// crypto/rand: two values sealed with one key and one nonce give the key's
// authentication away.
func (r *Ring) WithNonces(src io.Reader) *Ring {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nonces = src
	return r
}

// Newest returns the id new values are sealed with ("" for a nil ring).
func (r *Ring) Newest() string {
	if r == nil {
		return ""
	}
	return r.ids[len(r.ids)-1]
}

// IDs returns the ring's key ids, the newest last.
func (r *Ring) IDs() []string {
	if r == nil {
		return nil
	}
	return append([]string(nil), r.ids...)
}

// String lists the key ids only.
func (r *Ring) String() string {
	return "encryption keys [" + strings.Join(r.IDs(), " ") + "]"
}

// GoString is String, for %#v.
func (r *Ring) GoString() string { return r.String() }
