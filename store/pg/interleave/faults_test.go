package interleave_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/interleave"
)

// faultAt steps the run with its seed's choices until a round trip that
// hit matches is parked, applies fault to its connection, and runs the
// rest. It fails the test if no such round trip comes.
func (r *run) faultAt(hit func(interleave.Pending) bool, fault func(conn string) error) []interleave.Event {
	r.w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		pending, err := r.ctl.Settle(ctx)
		if err != nil {
			r.w.t.Fatal(err)
		}
		if i := slices.IndexFunc(pending, hit); i >= 0 {
			if err := fault(pending[i].Conn); err != nil {
				r.w.t.Fatal(err)
			}
			return r.finish()
		}
		if more, err := r.ctl.Step(ctx); err != nil || !more {
			r.w.t.Fatalf("the round trip to fault never came (%v)\n%s", err, trace(r.ctl.Events()))
		}
	}
}

func trip(conn, sqlPart string) func(interleave.Pending) bool {
	return func(p interleave.Pending) bool {
		return p.Conn == conn && slices.ContainsFunc(p.Statements, func(s string) bool { return names(s, sqlPart) })
	}
}

// TestSeverRollsBackOnTheServer: a worker whose connection drops while its
// transaction holds a reserved row gets a connection error, the server
// rolls the reservation back, and the other worker's reservation sees the
// row locked or free exactly as the interleaving says, the same on a
// second run of the seed.
func TestSeverRollsBackOnTheServer(t *testing.T) {
	testConnectionLoss(t, func(r *run) func(string) error { return r.ctl.Sever })
}

// TestTerminateRollsBackOnTheServer: the same when the server process is
// ended (pg_terminate_backend) instead.
func TestTerminateRollsBackOnTheServer(t *testing.T) {
	testConnectionLoss(t, func(r *run) func(string) error {
		return func(id string) error { return r.ctl.Terminate(context.Background(), id) }
	})
}

func testConnectionLoss(t *testing.T, fault func(*run) func(string) error) {
	w := newReserveWorld(t)
	for seed := uint64(1); seed <= 4; seed++ {
		var traces []string
		for range 2 {
			w.reset(seed)
			r := w.run(seed, "a", "b")
			race := w.startReserveRace(r)
			events := r.faultAt(trip("a#0", "WHERE id = $1"), fault(r))
			gotB, errA, errB := race.gotB, race.errA, race.errB
			if !errors.Is(errA, store.ErrUnavailable) || errB != nil {
				t.Fatalf("seed %d: a %v (want ErrUnavailable), b %v\n%s", seed, errA, errB, trace(events))
			}
			running, err := w.plainRunning()
			if err != nil || running != len(gotB) {
				t.Fatalf("seed %d: %d jobs running (%v), want only b's %d\n%s", seed, running, err, len(gotB), trace(events))
			}
			traces = append(traces, trace(events))
		}
		if traces[0] != traces[1] {
			t.Fatalf("seed %d ran differently twice:\n%s\nthen:\n%s", seed, traces[0], traces[1])
		}
	}
}

// TestLostCommitAnswer: the server commits, the caller sees the connection
// drop and gets ErrUnavailable ("maybe applied"), and the row is there.
func TestLostCommitAnswer(t *testing.T) {
	w := newWorld(t)
	for seed := uint64(1); seed <= 3; seed++ {
		w.exec("DELETE FROM {schema}.jobs")
		r := w.run(seed, "a", "b")
		jobs := newJobs(seed, 2)
		errs := r.inTx([]string{"a", "b"}, func(i int, ctx context.Context, tx store.Tx) error {
			_, err := tx.InsertJobs(ctx, jobs[i:i+1])
			return err
		})
		events := r.faultAt(trip("a#0", "commit"), r.ctl.ReleaseLosingAnswer)
		if !errors.Is(errs[0], store.ErrUnavailable) || errs[1] != nil {
			t.Fatalf("seed %d: a %v (want ErrUnavailable), b %v\n%s", seed, errs[0], errs[1], trace(events))
		}
		lose := index(events, 0, func(e interleave.Event) bool { return e.Kind == interleave.Lose && e.Conn == "a#0" })
		done := index(events, lose, is(interleave.Done, "a#0", "commit"))
		if lose < 0 || done < 0 || !slices.Equal(events[done].Tags, []string{"COMMIT"}) {
			t.Fatalf("seed %d: no lost commit that the server committed\n%s", seed, trace(events))
		}
		var n int
		if err := w.admin.QueryRow(context.Background(), "SELECT count(*) FROM "+w.schema+".jobs").Scan(&n); err != nil || n != 2 {
			t.Fatalf("seed %d: %d jobs (%v), want both committed", seed, n, err)
		}
	}
}

// TestSeverAfterLongPark severs round trips parked past pgx's 15 ms slow
// write timer, which starts the connection's background reader. The failed
// write then makes pgconn drain the connection on a goroutine of its own
// (asyncClose) while nothing orders its Reads after the background
// reader's: the gate's Read must take one reader at a time, as net.Conn
// allows several. Only go test -race shows the difference: it found the
// unguarded Read in each of 6 runs of this test. So it stays in the short
// run that make race makes, with 20 seeds instead of 40.
func TestSeverAfterLongPark(t *testing.T) {
	w := newWorld(t)
	labels := []string{"a", "b", "c", "d"}
	for seed := uint64(1); seed <= uint64(long.Count(40, 20)); seed++ {
		w.exec("DELETE FROM {schema}.jobs")
		r := w.run(seed, labels...)
		jobs := newJobs(seed, len(labels))
		errs := r.inTx(labels, func(i int, ctx context.Context, tx store.Tx) error {
			_, err := tx.InsertJobs(ctx, jobs[i:i+1])
			return err
		})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		for {
			pending, err := r.ctl.Settle(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(pending) == 0 {
				break
			}
			commits := func(p interleave.Pending) bool { return trip(p.Conn, "commit")(p) }
			if !slices.ContainsFunc(pending, commits) {
				if err := r.ctl.Release(pending[0].Conn); err != nil {
					t.Fatal(err)
				}
				continue
			}
			time.Sleep(40 * time.Millisecond) // past pgx's slow write timer
			for _, p := range pending {
				if err := r.ctl.Sever(p.Conn); err != nil {
					t.Fatal(err)
				}
			}
		}
		cancel()
		events := r.finish()
		for i, err := range errs {
			if !errors.Is(err, store.ErrUnavailable) {
				t.Fatalf("seed %d: %s got %v, want ErrUnavailable\n%s", seed, labels[i], err, trace(events))
			}
		}
	}
}

// TestLostPassAnswer: the job pass, a pipelined batch with no COMMIT,
// commits at its Sync, which the gate holds back and releases as a round
// trip of its own that commits (the batch's statements, and its prepare
// before, do not); when its answer is lost the caller gets
// ErrUnavailable and the reservation is there, committed.
func TestLostPassAnswer(t *testing.T) {
	w := newReserveWorld(t)
	const seeds = 3
	for seed := uint64(1); seed <= seeds; seed++ {
		w.reset(seed)
		r := w.run(seed, "a", "b")
		var errs [2]error
		for i, l := range []string{"a", "b"} {
			s := r.stores[l]
			r.ctl.Go(l, func() {
				_, errs[i] = store.RunJobPass(context.Background(), s,
					store.JobPass{Worker: w.workers[i], Heartbeat: true, Queues: []string{"q"}, Limit: 1})
			})
		}
		var wrong []string // not failed at once: the actors would be left parked
		events := r.faultAt(func(p interleave.Pending) bool {
			sync := slices.Equal(p.Statements, []string{"sync: commit the batch"})
			if p.Commits != sync {
				wrong = append(wrong, fmt.Sprintf("%s %s commits %v", p.Conn, interleave.Abbrev(p.Statements[len(p.Statements)-1], 40), p.Commits))
			}
			return p.Conn == "a#0" && sync
		}, r.ctl.ReleaseLosingAnswer)
		if len(wrong) > 0 {
			t.Fatalf("seed %d: round trips told wrong: %q\n%s", seed, wrong, trace(events))
		}
		pass := index(events, 0, is(interleave.Done, "a#0", "SKIP LOCKED"))
		if pass < 0 || events[pass].Tx != "open" || index(events, pass, is(interleave.Lose, "a#0", "sync: commit the batch")) < 0 {
			t.Fatalf("seed %d: the pass's statements did not leave its implicit transaction open for the Sync\n%s", seed, trace(events))
		}
		if !errors.Is(errs[0], store.ErrUnavailable) || errs[1] != nil {
			t.Fatalf("seed %d: a %v (want ErrUnavailable), b %v\n%s", seed, errs[0], errs[1], trace(events))
		}
		if running, err := w.plainRunning(); err != nil || running != 2 {
			t.Fatalf("seed %d: %d jobs running (%v), want both passes' reservations committed\n%s", seed, running, err, trace(events))
		}
	}
}
