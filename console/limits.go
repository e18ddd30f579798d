package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
)

// What one request may cost the console and its database. A page reads in
// one transaction whose statements end at the query timeout; a text
// search, which reads every row its filters leave, also holds one of a few
// search slots, so that however many searches arrive the rest of the
// console (the overview, /metrics, a job's page) keeps connections of its
// own in the pool; a job's documents are shown up to a size, past which the
// page links to the whole.
const (
	// defaultQueryTimeout ends any statement of a console page.
	defaultQueryTimeout = 10 * time.Second
	// maxSearchText is the longest text search, in characters: the time
	// ILIKE spends on a row grows with the pattern.
	maxSearchText = 200
	// maxSearchWaiters is how many searches may wait for a slot; more are
	// refused at once.
	maxSearchWaiters = 8
	// maxShownJSON is the most of a payload, metadata or output document
	// a job's page and /api/jobs/ID show; maxCellJSON the most of an
	// attempt's output in the chain's table.
	maxShownJSON, maxCellJSON = 64 << 10, 2 << 10
)

// searchSlots is how many searches run at once on a pool of maxConns:
// at most two, and never more than half the pool.
func searchSlots(maxConns int32) int { return max(1, min(2, int(maxConns)/2)) }

// searchGate bounds the searches running at once and those waiting.
type searchGate struct {
	slots   chan struct{}
	waiters chan struct{}
}

func newSearchGate(slots int) *searchGate {
	return &searchGate{slots: make(chan struct{}, slots), waiters: make(chan struct{}, maxSearchWaiters)}
}

// errBusy is a search refused because too many are running or waiting.
var errBusy = errors.New("busy")

// enter takes a search slot, waiting up to wait for one; release gives it
// back.
func (g *searchGate) enter(ctx context.Context, wait time.Duration) (release func(), err error) {
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, nil
	default:
	}
	select {
	case g.waiters <- struct{}{}:
		defer func() { <-g.waiters }()
	default:
		return nil, g.busy()
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, nil
	case <-t.C:
		return nil, g.busy()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (g *searchGate) busy() error {
	return &httpError{http.StatusServiceUnavailable, fmt.Errorf("%d text searches are running and %d waiting, the most the console runs at once: try again in a moment, or narrow the search by queue or status: %w",
		cap(g.slots), len(g.waiters), errBusy)}
}

// timedOut maps a statement ended by the query timeout to a 503 that says
// so; other errors are returned as they are.
func timedOut(err error, timeout time.Duration, what string) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "57014" {
		return &httpError{http.StatusServiceUnavailable, fmt.Errorf("%s took longer than the console's %s limit: narrow it by queue, status or a shorter text", what, timeout)}
	}
	return err
}

// checkText refuses a parameter that cannot reach PostgreSQL as text: not
// UTF-8, or holding a NUL.
func checkText(name, v string) error {
	switch {
	case !utf8.ValidString(v):
		return fmt.Errorf("%s=%q is not valid UTF-8", name, v)
	case strings.ContainsRune(v, 0):
		return fmt.Errorf("%s=%q holds a NUL character", name, v)
	}
	return nil
}
