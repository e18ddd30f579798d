package encryption

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/tickwork/tickwork/internal/envelope"
	"github.com/tickwork/tickwork/internal/mutant"
)

// The fields of a job its values are sealed for (Seal's field).
const (
	PayloadField = "payload"
	OutputField  = "output"
)

// MetadataField is the field of the metadata value of key.
func MetadataField(key string) string { return "metadata value " + key }

// SealJob returns a job's payload sealed, and its metadata (a JSON object)
// with the values of metaKeys sealed. A key of metaKeys the metadata lacks
// is an error: a misspelt name would leave the value meant in clear.
func (r *Ring) SealJob(payload, metadata json.RawMessage, metaKeys []string) (json.RawMessage, json.RawMessage, error) {
	sealed, err := r.Seal(PayloadField, payload)
	if err != nil {
		return nil, nil, err
	}
	if len(metaKeys) == 0 {
		return sealed, metadata, nil
	}
	var entries map[string]json.RawMessage
	if len(metadata) > 0 {
		if err := json.Unmarshal(metadata, &entries); err != nil {
			return nil, nil, fmt.Errorf("encryption: metadata is not a JSON object: %w", err)
		}
	}
	for _, k := range metaKeys {
		v, ok := entries[k]
		if !ok {
			return nil, nil, fmt.Errorf("encryption: metadata value %q is marked encrypted, but the job's metadata has no such entry", k)
		}
		if entries[k], err = r.Seal(MetadataField(k), v); err != nil {
			return nil, nil, err
		}
	}
	meta, err := json.Marshal(entries)
	if err != nil {
		return nil, nil, fmt.Errorf("encryption: encode metadata: %w", err)
	}
	return sealed, meta, nil
}

// Opened is a job's content in clear.
type Opened struct {
	Payload  json.RawMessage
	Metadata json.RawMessage
	// Keys are the ids of the keys that opened its sealed fields, payload
	// first, then metadata values by name; none when nothing was sealed.
	Keys []string
}

// OpenJob returns a job's stored payload and metadata in clear. Fields
// not sealed come back as they are; a field that does not open fails the
// whole job, with Open's reason.
func (r *Ring) OpenJob(payload, metadata json.RawMessage) (Opened, error) {
	clear, key, err := r.Open(PayloadField, payload)
	if err != nil {
		return Opened{}, err
	}
	o := Opened{Payload: clear, Metadata: metadata}
	if key != "" {
		o.Keys = append(o.Keys, key)
	}
	if !bytes.Contains(metadata, []byte(envelope.Field)) {
		return o, nil
	}
	var entries map[string]json.RawMessage
	if json.Unmarshal(metadata, &entries) != nil {
		return o, nil // not an object: nothing in it was sealed by SealJob
	}
	for _, k := range slices.Sorted(maps.Keys(entries)) { // Keys in a fixed order
		clear, key, err := r.Open(MetadataField(k), entries[k])
		if err != nil {
			return Opened{}, err
		}
		if key != "" {
			entries[k] = clear
			o.Keys = append(o.Keys, key)
		}
	}
	if o.Metadata, err = json.Marshal(entries); err != nil {
		return Opened{}, fmt.Errorf("encryption: encode opened metadata: %w", err)
	}
	return o, nil
}

// SealOutput returns the output to store for a job whose stored payload
// is payload: sealed when the payload was, as it is otherwise. A nil
// output stays nil.
func (r *Ring) SealOutput(payload, output json.RawMessage) (json.RawMessage, error) {
	if output == nil || !envelope.Is(payload) {
		return output, nil
	}
	if mutant.On(mutant.OutputInClear) {
		return output, nil
	}
	return r.Seal(OutputField, output)
}
