package sim

import (
	"context"

	"github.com/tickwork/tickwork/store"
)

// A worker's job pass runs as the store's own when it has one
// (store.JobPasser: store/pg's pipelined batch), as in production, with the
// faults InTx draws, drawn in the same order, so that a seed draws alike
// on every store and the in-memory store's traces stay as they were. The
// faults that need the transaction itself (a failure at commit, a
// read-only node's refused write, half-open silence after a commit) run
// the pass as a transaction of the Tx methods instead: one pipelined batch
// cannot be failed at its commit on demand.

var _ store.JobPasser = (*faultStore)(nil)

// RunJobPass runs p with the faults this seed enables.
func (f *faultStore) RunJobPass(ctx context.Context, p store.JobPass) (store.JobPassResult, error) {
	if !f.s.ownPass() {
		return store.RunJobPass(ctx, f.txOnly, p)
	}
	faults, sent, err := f.early()
	if !sent {
		return store.JobPassResult{}, err
	}
	switch f.drawAtStore(faults) {
	case atStoreReadOnly:
		return store.JobPassResult{}, f.readOnly(ctx)
	case atStoreHalfOpen:
		return f.asTx(ctx, p, func(fn func(store.Tx) error) error { return f.halfOpen(ctx, fn) })
	case atStoreAbort:
		return f.asTx(ctx, p, func(fn func(store.Tx) error) error { return f.commit(ctx, fn, faults, true) })
	}
	res, err := f.s.procPass(ctx, f.p, p)
	f.rec = txRecorder{reserved: len(res.Reserved), results: completions(p) - len(res.Fenced)}
	return res, f.settle(err, faults)
}

// completions counts the results p records, as txRecorder counts them:
// one per id given.
func completions(p store.JobPass) int {
	n := 0
	for _, c := range p.Complete {
		n += len(c.IDs)
	}
	return n
}

// asTx runs p through store.RunJobPass's transaction body, which it hands
// to tx: a store whose InTx is tx is not a JobPasser.
func (f *faultStore) asTx(ctx context.Context, p store.JobPass, tx func(func(store.Tx) error) error) (store.JobPassResult, error) {
	return store.RunJobPass(ctx, txBody{f, tx}, p)
}

// txBody is a store whose transactions go to run.
type txBody struct {
	store.Store
	run func(func(store.Tx) error) error
}

func (t txBody) InTx(_ context.Context, fn func(store.Tx) error) error { return t.run(fn) }

// ownPass reports whether processes send their job passes as the store's
// own (store.JobPasser): the Backend's store has one, and so, when
// transactions interleave, has each process's gated store, of the same
// kind.
func (s *sim) ownPass() bool {
	b, ok := s.be.(*diffBackend)
	if !ok {
		return false
	}
	_, ok = b.Store.(store.JobPasser)
	return ok
}

// procPass runs p as the store's own job pass of process pr, as procTx runs
// a transaction: on the Backend, or on pr's gated store when interleaving.
func (s *sim) procPass(ctx context.Context, pr *proc, p store.JobPass) (res store.JobPassResult, err error) {
	if s.interleaving() {
		res, err = s.interleavedPass(ctx, pr, p)
	} else {
		res, err = s.be.(*diffBackend).RunJobPass(ctx, p)
		s.takeCommits(pr)
	}
	if err == nil {
		s.res.Marks.set(MarkPipelinedPass)
	}
	return res, err
}
