package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

// bulkFlags are the filter flags with which jobs retry, cancel and
// delete act on every matching job instead of one id.
type bulkFlags struct {
	queue, status, text string
	olderThan           time.Duration
	all, dryRun         bool
	batchSize           int
}

// register adds the flags to fs. Their usage ends in "]" so that
// parseFlags names no environment variable: keepCommandLine drops what
// one set.
func (b *bulkFlags) register(fs *flag.FlagSet) {
	const only = " [command line only]"
	fs.StringVar(&b.queue, "queue", "", "act on the jobs of this `queue`"+only)
	fs.StringVar(&b.status, "status", "", "act on the jobs with this `status` (failed, lost, available, ...)"+only)
	fs.DurationVar(&b.olderThan, "older-than", 0, "act on the jobs created more than this `age` ago, by the database's clock"+only)
	fs.StringVar(&b.text, "text", "", "act on the jobs whose payload JSON contains this `text` (case-sensitive)"+only)
	fs.BoolVar(&b.all, "all", false, "act on every job: required when no other filter is given"+only)
	fs.BoolVar(&b.dryRun, "dry-run", false, "print how many jobs match and change nothing")
	fs.IntVar(&b.batchSize, "batch-size", worker.DefaultBulkBatch, "how many jobs one transaction reads (`n`, at most 5000)")
}

// keepCommandLine zeroes the filter flags that fs did not read from its
// command line: an environment variable left set (TICKWORK_QUEUE for
// jobs list, say) must not turn a forgotten id into a bulk delete.
func (b *bulkFlags) keepCommandLine(fs *flag.FlagSet) {
	line := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { line[f.Name] = true })
	for name, zero := range map[string]func(){
		"queue": func() { b.queue = "" }, "status": func() { b.status = "" }, "older-than": func() { b.olderThan = 0 },
		"text": func() { b.text = "" }, "all": func() { b.all = false },
	} {
		if !line[name] {
			zero()
		}
	}
}

// given reports whether a filter flag or -all was set: a bulk action.
func (b *bulkFlags) given() bool {
	return b.queue != "" || b.status != "" || b.olderThan != 0 || b.text != "" || b.all
}

// bulkDone is the past tense of each action, for the summary.
var bulkDone = map[worker.BulkAction]string{worker.BulkRetry: "retried", worker.BulkCancel: "cancelled", worker.BulkDelete: "deleted"}

// jobsBulk runs action on the jobs b selects and prints the count for a
// dry run, or the counts done and refused (each refusal on stderr).
// A refusal is not a failure: the jobs it names are as they were.
func (c *cli) jobsBulk(ctx context.Context, st openedStore, action worker.BulkAction, b *bulkFlags, schema string) error {
	r := worker.BulkRequest{Action: action, DryRun: b.dryRun, BatchSize: b.batchSize,
		Filter: worker.BulkFilter{Queue: b.queue, Status: store.Status(b.status), OlderThan: b.olderThan, Text: b.text, All: b.all}}
	res, err := worker.NewClient(st, nil).Bulk(ctx, r)
	if err != nil && errors.Is(err, store.ErrInvalid) && res.Batches == 0 {
		return usagef("%v", err)
	}
	if err != nil {
		return explainStoreError(fmt.Errorf("%w (%d jobs %s before it)", err, res.Done, bulkDone[action]), schema)
	}
	if b.dryRun {
		fmt.Fprintf(c.stdout, "%d jobs match; dry run, nothing %s\n", res.Matched, bulkDone[action])
		return nil
	}
	fmt.Fprintf(c.stdout, "%d jobs matched, %d %s, %d refused\n", res.Matched, res.Done, bulkDone[action], res.Refused)
	for _, why := range res.Refusals {
		fmt.Fprintf(c.stderr, "refused: %s\n", why)
	}
	if res.Refused > len(res.Refusals) {
		fmt.Fprintf(c.stderr, "refused: %d more not shown\n", res.Refused-len(res.Refusals))
	}
	return nil
}
