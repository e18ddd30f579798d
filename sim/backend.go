package sim

import (
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
)

// Backend is the store under simulation together with what the simulator
// needs to observe it. The store's time must be the now function given to
// the Backend's constructor (the simulator's true time), never the machine's
// clock, so that a seed replays against any store.
//
// TakeCommits is the seam that makes the store swappable: the in-memory
// store reports its commits through a hook (MemBackend); any other store,
// store/pg included, becomes a Backend through DiffBackend, which reads back
// what each transaction changed. The simulator reduces every commit to a
// canonical form, so both give the same trace for the same seed.
type Backend interface {
	store.Store
	// TakeCommits returns the transactions committed since the previous
	// call, in commit order, and forgets them. The slice is only valid until
	// the next transaction starts.
	TakeCommits() []store.Commit
}

// NewBackend makes a fresh, empty store whose clock is now.
type NewBackend func(now func() time.Time) (Backend, error)

// memBackend is the in-memory store with its commit hook buffered.
type memBackend struct {
	*mem.Store
	commits []store.Commit
}

// MemBackend returns the in-memory store (store/mem) as a Backend: the
// store of a run given none, and the one a run on another store is
// compared with (RunCompared).
func MemBackend(now func() time.Time) (Backend, error) {
	return newMemBackend(now), nil
}

func newMemBackend(now func() time.Time) *memBackend {
	b := &memBackend{Store: mem.New(now)}
	// The hook runs inside the store's lock; it only buffers, and the
	// simulator reads the buffer once the transaction has returned.
	b.SetCommitHook(func(c store.Commit) { b.commits = append(b.commits, c) })
	return b
}

func (b *memBackend) TakeCommits() []store.Commit {
	out := b.commits
	b.commits = out[:0] // reused: the caller is done with out before the next commit
	return out
}
