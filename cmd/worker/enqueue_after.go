package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

// afterFlags are enqueue's flags of dependencies.
type afterFlags struct {
	after  string
	anyway bool
}

func (f *afterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.after, "after", "", "run the job only once these jobs (comma-separated ids) have completed; it waits until then")
	fs.BoolVar(&f.anyway, "run-anyway", false, "with -after: run the job even if a parent fails for good or is cancelled (by default it is cancelled then)")
}

// options checks the flags and returns the enqueue options they ask for.
func (f *afterFlags) options() ([]worker.EnqueueOption, error) {
	if f.after == "" {
		if f.anyway {
			return nil, usagef("-run-anyway needs -after")
		}
		return nil, nil
	}
	var ids []ulid.ULID
	for _, s := range strings.Split(f.after, ",") {
		id, err := parseJobID(strings.TrimSpace(s))
		if err != nil {
			return nil, usagef("-after: %v", err)
		}
		ids = append(ids, id)
	}
	if len(ids) > store.MaxParents {
		return nil, usagef("-after names %d jobs, more than the %d allowed", len(ids), store.MaxParents)
	}
	opts := []worker.EnqueueOption{worker.After(ids...)}
	if f.anyway {
		opts = append(opts, worker.RunAnyway())
	}
	return opts, nil
}

// parentWait says what a waiting job waits for: each parent it still
// waits for (the current attempt of each) and its status.
func parentWait(ctx context.Context, tx store.Tx, job store.Job) (string, error) {
	if job.Status != store.Waiting {
		return "", nil
	}
	parts := make([]string, len(job.Parents))
	for i, p := range job.Parents {
		status := "deleted"
		switch j, err := tx.GetJob(ctx, p); {
		case err == nil:
			status = string(j.Status)
		case !errors.Is(err, store.ErrNotFound):
			return "", err
		}
		parts[i] = fmt.Sprintf("%s (%s)", p, status)
	}
	what := "for its parents to complete: "
	if job.RunAnyway {
		what = "for its parents to end (it runs anyway): "
	}
	return what + strings.Join(parts, ", "), nil
}

// jobWaits says what a job waits for: its parents, its key's limit or its
// sequence's head.
func jobWaits(ctx context.Context, tx store.Tx, job store.Job) (string, error) {
	if job.Status == store.Waiting {
		return parentWait(ctx, tx, job)
	}
	if w, err := keyWait(ctx, tx, job); w != "" || err != nil {
		return w, err
	}
	return sequenceWait(ctx, tx, job)
}
