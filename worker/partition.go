package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tickwork/tickwork/store"
)

// PartitionKey gives the jobs partition key key: a queue's per-key limit
// (Client.SetQueueKeyLimit) bounds how many of its jobs with the same key
// run at once across every worker, so one tenant's backlog cannot take
// every place of a queue. Retries and snoozes keep the key. A key is at
// most store.MaxPartitionKeyBytes of UTF-8 without NUL; "" is none.
func PartitionKey(key string) EnqueueOption {
	return func(o *enqueueOptions) { o.partition = partitionOptions{key: key} }
}

// PartitionKeyFrom derives each job's partition key from the named
// top-level fields of its JSON payload, their values' JSON texts joined by
// "/" (a string field gives its text without quotes): with fields
// "tenant" and "region", {"tenant":"t42","region":"eu"} gets the key
// "t42/eu". A payload that is not an object or lacks a field is an error
// and nothing is written.
func PartitionKeyFrom(fields ...string) EnqueueOption {
	return func(o *enqueueOptions) { o.partition = partitionOptions{fields: fields} }
}

// partitionOptions is what PartitionKey or PartitionKeyFrom asked for.
type partitionOptions struct {
	key    string
	fields []string
}

// keyOf returns the partition key of the job with payload raw.
func (p partitionOptions) keyOf(raw json.RawMessage) (string, error) {
	if len(p.fields) == 0 {
		return p.key, nil
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return "", fmt.Errorf("partition key from fields %q: payload is not a JSON object: %w", p.fields, store.ErrInvalid)
	}
	parts := make([]string, len(p.fields))
	for i, f := range p.fields {
		v, ok := doc[f]
		if !ok {
			return "", fmt.Errorf("partition key from fields %q: payload has no field %q: %w", p.fields, f, store.ErrInvalid)
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v) // not a string: its JSON text
		}
		parts[i] = s
	}
	return strings.Join(parts, "/"), nil
}

// SetQueueKeyLimit bounds how many jobs of queue with the same partition
// key (PartitionKey) run at once across every worker process; 0 removes
// the bound. It holds together with the queue's limit (SetQueueLimit), and
// jobs without a key are bound by that alone. Workers skip over the jobs
// of a key at its limit and start the jobs of other keys behind them, so a
// key's backlog does not hold up the others.
func (c *Client) SetQueueKeyLimit(ctx context.Context, queue string, limit int) error {
	return c.queueControl(ctx, "set queue per-key limit", queue, func(tx store.Tx) error {
		return tx.SetQueueKeyLimit(ctx, queue, limit)
	})
}
