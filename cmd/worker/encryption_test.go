package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// TICKWORK_ENCRYPTION_KEYS gives run its ring, newest last; a bad ring is
// a usage error naming the key, and neither it nor -help shows a secret.
func TestEncryptionKeysNeverShowASecret(t *testing.T) {
	secret := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{9}, 32))
	f := parseRun(t, nil, map[string]string{"TICKWORK_ENCRYPTION_KEYS": "old:" + secret + ",new:" + secret})
	ring, err := f.keys.ring()
	if err != nil || ring.Newest() != "new" {
		t.Fatalf("ring %v, %v; want newest key new", ring, err)
	}
	f = parseRun(t, []string{"-encryption-keys", "short:" + secret[:8]}, nil)
	_, err = f.keys.ring()
	var usage *usageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), `key "short"`) || strings.Contains(err.Error(), secret[:8]) {
		t.Errorf("a short key: %v", err)
	}
	var stdout bytes.Buffer
	fs := newFlagSet("worker run", runSynopsis, &stdout)
	var g runFlags
	g.register(fs)
	_, _ = parseFlags(fs, []string{"-encryption-keys", "k:" + secret, "-help"}, fakeEnv(nil))
	if help := stdout.String(); strings.Contains(help, secret) || !strings.Contains(help, "TICKWORK_ENCRYPTION_KEYS") {
		t.Errorf("-help shows a secret or misses the variable:\n%s", help)
	}
}

// enqueue -encrypt needs keys, and refuses what cannot be sealed.
func TestEnqueueEncryptRefusals(t *testing.T) {
	for _, c := range []struct {
		f    enqueueFlags
		want string
	}{
		{enqueueFlags{encrypt: true}, "-encrypt needs keys"},
		{enqueueFlags{encrypt: true, printSQL: true}, "-print-sql"},
		{enqueueFlags{encrypt: true, keys: keysFlag{text: "k:AAAA"}}, `key "k" has 3 bytes`},
	} {
		if _, err := c.f.encryptionKeys(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.f, err, c.want)
		}
	}
}
