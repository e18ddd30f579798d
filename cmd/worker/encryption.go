package main

import (
	"flag"

	"github.com/tickwork/tickwork/encryption"
)

// keysFlag is -encryption-keys (TICKWORK_ENCRYPTION_KEYS): the key ring,
// "id:base64,id:base64", the newest last. Set keeps the text and ring
// parses it, so that no message of the flag package, which quotes a
// refused value, can print a secret; String shows none either.
type keysFlag struct{ text string }

const keysUsage = "encryption key ring, id:base64 (32 bytes) separated by commas, the newest last: " +
	"opens the jobs enqueued encrypted and seals their outputs (prefer the environment variable: a flag shows in ps)"

func (k *keysFlag) register(fs *flag.FlagSet) { fs.Var(k, "encryption-keys", keysUsage) }

// String never shows the keys: the flag package prints it in -help, and
// a value receiver keeps %v of a struct holding one from printing them.
func (k keysFlag) String() string {
	if k.text == "" {
		return ""
	}
	return "(set)"
}

// Set keeps the text; ring checks it.
func (k *keysFlag) Set(v string) error {
	k.text = v
	return nil
}

// ring returns the keys, or nil when none were given. Its errors name a
// key's place or id, never a secret.
func (k *keysFlag) ring() (*encryption.Ring, error) {
	if k.text == "" {
		return nil, nil
	}
	r, err := encryption.ParseRing(k.text)
	if err != nil {
		return nil, usagef("-encryption-keys: %v", err)
	}
	return r, nil
}
