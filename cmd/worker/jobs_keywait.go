package main

import (
	"context"
	"fmt"

	"github.com/tickwork/tickwork/store"
)

// keyWait says whether an available job waits for its key's limit: its
// queue has a per-key limit and as many of its jobs with the job's key
// run. "" when it does not, or the job has no key or is not available,
// which costs nothing more than the job itself.
func keyWait(ctx context.Context, tx store.Tx, job store.Job) (string, error) {
	if job.Status != store.Available || job.PartitionKey == "" {
		return "", nil
	}
	queues, err := tx.ListQueues(ctx)
	if err != nil {
		return "", err
	}
	limit := 0
	for _, q := range queues {
		if q.Name == job.Queue {
			limit = q.KeyLimit
		}
	}
	if limit == 0 {
		return "", nil
	}
	running, err := runningWithKey(ctx, tx, job.Queue, job.PartitionKey)
	if err != nil || running < limit {
		return "", err
	}
	return fmt.Sprintf("for its key's limit: %d of its queue's jobs with key %s run, the per-key limit is %d",
		running, cell(job.PartitionKey), limit), nil
}

// runningWithKey counts queue's running jobs with partition key key, a
// page of running jobs at a time (they are bounded by the workers'
// concurrency).
func runningWithKey(ctx context.Context, tx store.Tx, queue, key string) (int, error) {
	n := 0
	f := store.JobFilter{Status: store.Running, Queue: queue, Limit: 1000}
	for {
		page, err := tx.ListJobs(ctx, f)
		if err != nil {
			return 0, err
		}
		for _, j := range page {
			if j.PartitionKey == key {
				n++
			}
		}
		if len(page) < f.Limit {
			return n, nil
		}
		f.After = page[len(page)-1].ID
	}
}
