package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

// uniqueFlags are worker enqueue's unique-job flags.
type uniqueFlags struct {
	key       string
	byPayload bool
	while     string
	per       time.Duration
}

func (f *uniqueFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.key, "unique-key", "", fmt.Sprintf("enqueue nothing while a job holding this key exists, and print that job's id (at most %d bytes)", store.MaxUniqueKeyBytes))
	fs.BoolVar(&f.byPayload, "unique-by-payload", false, "as -unique-key, with a key made of the queue and the payload")
	fs.StringVar(&f.while, "unique-while", "", "statuses besides scheduled, available and running in which a job holds its key: completed, cancelled, or both comma-separated")
	durationVar(fs, &f.per, "unique-per", 0, 0, maxDelay, "make the key unique per window of this length of database time")
}

// options checks the flags and returns the enqueue options they ask for;
// existing (set when the job was a duplicate) hears of a duplicate.
func (f *uniqueFlags) options(existing *store.Job) ([]worker.EnqueueOption, error) {
	switch {
	case f.key != "" && f.byPayload:
		return nil, usagef("-unique-key and -unique-by-payload both give the key: give one of them")
	case f.key == "" && !f.byPayload:
		if f.while != "" || f.per != 0 {
			return nil, usagef("-unique-while and -unique-per need -unique-key or -unique-by-payload")
		}
		return nil, nil
	}
	opts := []worker.EnqueueOption{worker.WithOnDuplicate(func(_ int, j store.Job) { *existing = j })}
	if f.byPayload {
		opts = append(opts, worker.WithUniqueByPayload())
	} else {
		check := store.NewJob{Queue: "q", Payload: []byte("{}"), UniqueKey: f.key}
		if err := store.ValidateNewJob(check); err != nil {
			return nil, usagef("-unique-key %s: a key is 1 to %d bytes of UTF-8 without NUL", shown(f.key), store.MaxUniqueKeyBytes)
		}
		opts = append(opts, worker.WithUniqueKey(f.key))
	}
	var extra []store.Status
	for name := range strings.SplitSeq(f.while, ",") {
		switch s := store.Status(strings.TrimSpace(name)); s {
		case "":
		case store.Completed, store.Cancelled:
			extra = append(extra, s)
		default:
			return nil, usagef("-unique-while %s: want completed, cancelled or both", shown(f.while))
		}
	}
	return append(opts, worker.WithUniqueWhile(extra...), worker.WithUniquePeriod(f.per)), nil
}
