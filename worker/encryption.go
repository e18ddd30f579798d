package worker

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tickwork/tickwork/encryption"
	"github.com/tickwork/tickwork/store"
)

// Encrypted stores the jobs' payloads sealed with the newest key of the
// client's ring (Client.SetEncryption), and the values of the metadata
// entries named by metaKeys (WithMetadata's or an enqueue hook's); the
// output a job records is then sealed too. A worker opens them with its
// Options.Encryption before the middleware and the handler see the job.
// Unique and partition keys are computed from the payload in clear and
// stored in clear: derive them from nothing secret.
func Encrypted(metaKeys ...string) EnqueueOption {
	return func(o *enqueueOptions) {
		o.encrypted = true
		o.encryptMeta = metaKeys
	}
}

// SetEncryption gives the client the ring Encrypted seals with; nil
// takes it away. Jobs enqueued without Encrypted are stored in clear.
func (c *Client) SetEncryption(ring *encryption.Ring) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ring = ring
}

// seal replaces the payload and the marked metadata values of j, the
// job of payload i, with their sealed forms.
func (c *Client) seal(i int, j *store.NewJob, metaKeys []string) error {
	c.mu.Lock()
	ring := c.ring
	c.mu.Unlock()
	if ring == nil {
		return fmt.Errorf("worker: payload %d for queue %q is marked Encrypted, but the client has no key ring (Client.SetEncryption)", i, j.Queue)
	}
	payload, meta, err := ring.SealJob(j.Payload, j.Metadata, metaKeys)
	if err != nil {
		return fmt.Errorf("worker: payload %d for queue %q: %w", i, j.Queue, err)
	}
	j.Payload, j.Metadata = payload, meta
	return nil
}

// callOpened runs the handler on job's payload and metadata in clear. A
// job this worker cannot open is a plain error, retried: another worker,
// or this one once given the key, may hold it.
func (w *Worker) callOpened(ctx context.Context, h *handler, job store.Job) (panicked bool, err error) {
	if !h.deprecated {
		o, err := w.ring.OpenJob(job.Payload, job.Metadata)
		if err != nil {
			return false, fmt.Errorf("worker: %w", err)
		}
		job.Payload, job.Metadata = o.Payload, o.Metadata
	}
	return callHandler(ctx, h, job)
}

// sealOutput returns the output to store for an attempt of job (as
// stored): sealed when its payload is. Failing to seal fails the attempt
// rather than store the output in clear.
func (w *Worker) sealOutput(job store.Job, out json.RawMessage, err error) (json.RawMessage, error) {
	if err != nil || out == nil {
		return out, err
	}
	sealed, sealErr := w.ring.SealOutput(job.Payload, out)
	if sealErr != nil {
		return nil, fmt.Errorf("worker: %w", sealErr)
	}
	return sealed, nil
}
