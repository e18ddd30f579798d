package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/tickwork/tickwork/store"
)

// outputKey is the context key of the running attempt's outputSlot.
type outputKey struct{}

// attemptContext is the context an attempt's handler runs in: its
// parent's, with the attempt's outputSlot as the value of outputKey. It
// is one allocation per attempt where context.WithValue and the slot
// were two.
type attemptContext struct {
	context.Context
	out outputSlot
}

// Value returns the attempt's outputSlot for outputKey and asks the
// parent for any other key.
func (c *attemptContext) Value(key any) any {
	if _, ok := key.(outputKey); ok {
		return &c.out
	}
	return c.Context.Value(key)
}

// outputSlot holds what one attempt's handler recorded. A handler may
// record from goroutines of its own, hence the lock.
type outputSlot struct {
	mu  sync.Mutex
	doc json.RawMessage
}

// recorded returns the output to keep: the last one recorded, if the
// attempt succeeded.
func (s *outputSlot) recorded(succeeded bool) json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !succeeded {
		return nil
	}
	return s.doc
}

// errNoAttempt is RecordOutput's error outside a handler.
var errNoAttempt = errors.New("worker: RecordOutput called outside a job handler's context")

// RecordOutput records v, encoded as JSON, as the output of the attempt
// whose handler received ctx. If the attempt succeeds, the output is kept
// with the completed row (worker jobs show prints it); a failed attempt's
// output is dropped. A later call replaces an earlier one. v must encode
// to at most store.MaxPayloadBytes of valid JSON, as a payload must;
// otherwise nothing is recorded and the error says why.
func RecordOutput(ctx context.Context, v any) error {
	slot, ok := ctx.Value(outputKey{}).(*outputSlot)
	if !ok {
		return errNoAttempt
	}
	doc, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("worker: encode output %T: %w", v, err)
	}
	if err := store.ValidateOutput(doc); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	slot.mu.Lock()
	slot.doc = doc
	slot.mu.Unlock()
	return nil
}
