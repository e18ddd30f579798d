package interleave_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/interleave"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// world is one schema shared by the actors of every run of a test.
type world struct {
	t      *testing.T
	url    string
	schema string
	admin  *pgx.Conn // ungated: set-up, checks and the controller's questions
}

func newWorld(t *testing.T) *world {
	t.Helper()
	url := pg.WithParam(pgtest.URL(t), "synchronous_commit", "off")
	w := &world{t: t, url: url, schema: pgtest.Schema(t)}
	ctx := context.Background()
	s, err := pg.Open(ctx, url, pg.Options{Schema: w.schema})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if w.admin, err = pgx.Connect(ctx, url); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.admin.Close(context.Background()) })
	return w
}

func (w *world) exec(sql string, args ...any) {
	w.t.Helper()
	if _, err := w.admin.Exec(context.Background(), strings.ReplaceAll(sql, "{schema}", pgx.Identifier{w.schema}.Sanitize()), args...); err != nil {
		w.t.Fatalf("%s: %v", sql, err)
	}
}

// run is one interleaving: a controller on seed and a gated store per
// label, all on the world's schema.
type run struct {
	w      *world
	ctl    *interleave.Controller
	stores map[string]*pg.Store
}

func (w *world) run(seed uint64, labels ...string) *run {
	w.t.Helper()
	return w.runWith(seed, interleave.Options{}, labels...)
}

func (w *world) runWith(seed uint64, opts interleave.Options, labels ...string) *run {
	w.t.Helper()
	opts.Schema = w.schema
	r := &run{w: w, ctl: interleave.New(w.admin, clockrng.NewRand(seed), opts), stores: map[string]*pg.Store{}}
	for _, l := range labels {
		s, err := pg.Open(context.Background(), w.url, pg.Options{Schema: w.schema, Gate: r.ctl.Gate(l)})
		if err != nil {
			w.t.Fatal(err)
		}
		w.t.Cleanup(s.Close)
		r.stores[l] = s
	}
	return r
}

// inTx starts, as actor labels[i], a store transaction that runs
// body(i, ...), and returns where each actor's error will be once finish
// has returned.
func (r *run) inTx(labels []string, body func(i int, ctx context.Context, tx store.Tx) error) []error {
	errs := make([]error, len(labels))
	for i, l := range labels {
		s := r.stores[l]
		r.ctl.Go(l, func() {
			ctx := context.Background()
			errs[i] = s.InTx(ctx, func(tx store.Tx) error { return body(i, ctx, tx) })
		})
	}
	return errs
}

// finish runs the controller until every actor returned and closes the
// stores, so that the next run starts from new connections.
func (r *run) finish() []interleave.Event {
	r.w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := r.ctl.Run(ctx)
	for _, s := range r.stores {
		s.Close()
	}
	if err != nil {
		r.w.t.Fatal(err)
	}
	return r.ctl.Events()
}

// reached is a coverage mark: a test whose interesting case happened in
// none of its seeds shows nothing, and fails.
func reached(t *testing.T, n, seeds int, what string) {
	t.Helper()
	if n == 0 {
		t.Fatalf("in none of %d seeds: %s; the test shows nothing", seeds, what)
	}
	t.Logf("in %d of %d seeds: %s", n, seeds, what)
}

// lockWaits is what props checks of an interleaving's waits.
func lockWaits(events []interleave.Event) []props.LockWait {
	var out []props.LockWait
	for _, e := range events {
		if e.Kind == interleave.Wait {
			out = append(out, props.LockWait{Conn: e.Conn, Statement: e.Waiting, On: e.On})
		}
	}
	return out
}

// locksJobRows tells a statement that takes row locks on jobs, as a
// reservation does, with or without SKIP LOCKED.
func locksJobRows(sql string) bool {
	return strings.Contains(sql, ".jobs") && strings.Contains(sql, "FOR UPDATE")
}

// trace renders events one a line, for comparing runs and for failures.
func trace(events []interleave.Event) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// index returns the position of the first event after from that matches,
// or -1.
func index(events []interleave.Event, from int, match func(interleave.Event) bool) int {
	if from < 0 {
		return -1
	}
	if i := slices.IndexFunc(events[from:], match); i >= 0 {
		return from + i
	}
	return -1
}

func is(kind interleave.Kind, conn, sqlPart string) func(interleave.Event) bool {
	return func(e interleave.Event) bool {
		return e.Kind == kind && e.Conn == conn && slices.ContainsFunc(e.Statements, func(s string) bool {
			return names(s, sqlPart) && !interleave.Prepares(s)
		})
	}
}

// names reports whether statement s is the one sqlPart names: a part of
// one word ("commit") is the whole statement, since a transaction's
// "begin isolation level read committed" contains it; a longer part is
// found anywhere in it.
func names(s, sqlPart string) bool {
	if !strings.Contains(sqlPart, " ") {
		return s == sqlPart
	}
	return strings.Contains(s, sqlPart)
}
