package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
)

// failingStore answers every transaction with err while err is set.
type failingStore struct {
	store.Store
	err error
}

func (s *failingStore) InTx(ctx context.Context, fn func(store.Tx) error) error {
	if s.err != nil {
		return s.err
	}
	return s.Store.InTx(ctx, fn)
}

func TestStoreProbeFollowsTheWorkersCalls(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	inner := &failingStore{Store: mem.New(func() time.Time { return now })}
	probe := newStoreProbe(inner, func() time.Time { return now })
	const stale = 10 * time.Second
	want := func(what, reason string) {
		t.Helper()
		err := probe.ready(stale)
		if (reason == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), reason)) {
			t.Errorf("%s: ready = %v, want %q", what, err, reason)
		}
	}
	noop := func(store.Tx) error { return nil }
	want("before any call", "has not reached the store yet")

	if _, err := store.RunJobPass(context.Background(), probe, store.JobPass{}); err != nil {
		t.Fatal(err)
	}
	want("after a job pass", "")

	inner.err = fmt.Errorf("schema not migrated: %w", errors.New(`relation "jobs" does not exist`))
	_ = probe.InTx(context.Background(), noop)
	want("after a failed tick", `relation "jobs" does not exist`)

	inner.err = fmt.Errorf("fail job: %w", store.ErrFenced)
	_ = probe.InTx(context.Background(), noop)
	want("after an answer about a row", "")

	inner.err = context.Canceled
	_ = probe.InTx(context.Background(), noop)
	want("after a cancelled call", "")

	now = now.Add(stale + time.Second)
	want("after a silence longer than staleAfter", "has not reached the store for 11s")
}
