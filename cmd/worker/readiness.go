package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tickwork/tickwork/store"
)

// storeProbe is the store as the worker sees it: it passes every call on
// and remembers how the latest one ended, so that /readyz can say whether
// the worker's ticks reach the store. A ping of its own would not: it
// succeeds while every tick fails (the schema dropped under a running
// worker, say).
type storeProbe struct {
	store.Store
	now func() time.Time

	mu      sync.Mutex
	lastOK  time.Time // when a call last reached the store
	lastErr error     // the error of the latest call, nil if it reached the store
	errAt   time.Time
}

// The probe keeps the store's faster job pass (store.JobPasser), which a
// plain wrapper would hide.
var _ store.JobPasser = (*storeProbe)(nil)

// The probe passes the store's vacuum on (store.Vacuumer), or the vacuum
// duty would find none.
var _ store.Vacuumer = (*storeProbe)(nil)

// VacuumJobs runs the store's vacuum, if it has one. Like any other call
// it tells whether the store answers.
func (p *storeProbe) VacuumJobs(ctx context.Context) error {
	v, ok := p.Store.(store.Vacuumer)
	if !ok {
		return fmt.Errorf("vacuum jobs: store %T cannot vacuum", p.Store)
	}
	err := v.VacuumJobs(ctx)
	p.record(err)
	return err
}

func newStoreProbe(st store.Store, now func() time.Time) *storeProbe {
	return &storeProbe{Store: st, now: now}
}

func (p *storeProbe) InTx(ctx context.Context, fn func(store.Tx) error) error {
	err := p.Store.InTx(ctx, fn)
	p.record(err)
	return err
}

func (p *storeProbe) RunJobPass(ctx context.Context, jp store.JobPass) (store.JobPassResult, error) {
	res, err := store.RunJobPass(ctx, p.Store, jp)
	p.record(err)
	return res, err
}

// record notes the outcome of a call. An answer of the store about the
// rows (not found, fenced, conflict, invalid) means it was reached; a
// cancelled call says nothing either way.
func (p *storeProbe) record(err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	reached := err == nil
	for _, answer := range []error{store.ErrNotFound, store.ErrFenced, store.ErrConflict, store.ErrInvalid} {
		reached = reached || errors.Is(err, answer)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if reached {
		p.lastOK, p.lastErr = p.now(), nil
	} else {
		p.lastErr, p.errAt = err, p.now()
	}
}

// ready reports nil when the latest call reached the store and one did no
// longer than staleAfter ago; otherwise why not.
func (p *storeProbe) ready(staleAfter time.Duration) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	switch {
	case p.lastErr != nil:
		return fmt.Errorf("the worker's last store call failed %v ago: %w", now.Sub(p.errAt).Round(time.Millisecond), p.lastErr)
	case p.lastOK.IsZero():
		return errors.New("the worker has not reached the store yet")
	case now.Sub(p.lastOK) > staleAfter:
		return fmt.Errorf("the worker has not reached the store for %v", now.Sub(p.lastOK).Round(time.Millisecond))
	}
	return nil
}

// readinessStaleAfter is how long without a store call that succeeded
// makes a worker not ready: every tick calls the store at least once (it
// maintains the lease), so ten poll intervals without an answer mean the
// store hangs.
func readinessStaleAfter(poll time.Duration) time.Duration {
	return max(10*poll, 10*time.Second)
}
