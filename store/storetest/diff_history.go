package storetest

import (
	"context"
	"fmt"

	"pgregory.net/rapid"

	"github.com/tickwork/tickwork/store"
)

// drawSetQueueHistory sets a drawn queue's history: none two times in
// three, so that completions delete rows, else keep.
func drawSetQueueHistory(rt *rapid.T, _ *diff) op {
	q := drawQueueName(rt)
	keep := rapid.IntRange(0, 2).Draw(rt, "keep history") == 0
	return op{fmt.Sprintf("setQueueHistory %q keep=%t", q, keep), func(ctx context.Context, tx store.Tx) (string, error) {
		return "", tx.SetQueueHistory(ctx, q, keep)
	}}
}
