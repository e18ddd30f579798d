package storetest

import (
	"context"
	"fmt"
	"strings"

	"pgregory.net/rapid"

	"github.com/tickwork/tickwork/store"
)

// The differential's draws of sequences: new jobs' sequence keys, and an
// operator's skip and look at a sequence's head.

// diffSequenceKeys: none half the time, two that share their jobs'
// order, then ones no store accepts.
var diffSequenceKeys = []string{"", "", "s1", "s2", "s\x00", strings.Repeat("s", store.MaxSequenceKeyBytes+1)}

// drawSequence gives j a sequence key, mostly when it has no partition
// key (a job with both is refused), half of them continuing on failure;
// rarely continuing without one (refused too).
func drawSequence(rt *rapid.T, j *store.NewJob) {
	if j.PartitionKey != "" && rapid.IntRange(0, 9).Draw(rt, "sequence beside a partition key") != 0 {
		return
	}
	j.SequenceKey = rarely(rt, diffSequenceKeys, 4, "sequence key")
	j.SequenceContinues = rapid.Bool().Draw(rt, "continues on failure") &&
		(j.SequenceKey != "" || rapid.IntRange(0, 19).Draw(rt, "continues without a sequence") == 0)
}

// drawSkipJob skips a failed or lost row when there is one, else any job
// (an unknown id included).
func drawSkipJob(rt *rapid.T, d *diff) op {
	id := d.pickFailedOrLost(rt)
	return op{"skipJob " + id.String(), func(ctx context.Context, tx store.Tx) (string, error) {
		j, err := tx.SkipJob(ctx, id)
		return store.FormatJob(j), err
	}}
}

// drawSequenceHead looks at the head of a sequence, maybe of none.
func drawSequenceHead(rt *rapid.T, _ *diff) op {
	key := rapid.SampledFrom(diffSequenceKeys[1:4]).Draw(rt, "sequence")
	return op{fmt.Sprintf("sequenceHead %q", key), func(ctx context.Context, tx store.Tx) (string, error) {
		j, err := tx.SequenceHead(ctx, key)
		return store.FormatJob(j), err
	}}
}
