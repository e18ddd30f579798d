package mem_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/store/storetest"
)

// recorder keeps every commit the hook reports, formatted.
type recorder struct{ commits []string }

func (r *recorder) hook(c store.Commit) {
	var b strings.Builder
	fmt.Fprintf(&b, "at %s:", c.Now.Format("15:04:05.000000"))
	for _, j := range c.Jobs {
		fmt.Fprintf(&b, " job %s %s->%s", short(j.ID()), jobState(j.Before), jobState(j.After))
	}
	for _, w := range c.Workers {
		fmt.Fprintf(&b, " worker %s %v->%v", short(w.ID()), w.Before != nil, w.After != nil)
	}
	if c.Lease != nil {
		fmt.Fprintf(&b, " lease %v->%v", c.Lease.Before != nil, c.Lease.After != nil)
	}
	for _, s := range c.Schedules {
		fmt.Fprintf(&b, " schedule %s", s.Name())
	}
	for _, n := range c.Notifications {
		fmt.Fprintf(&b, " notify %s/%s", n.Channel, n.Queue)
	}
	r.commits = append(r.commits, b.String())
}

func short(id ulid.ULID) string { return id.String()[20:] }

func jobState(j *store.Job) string {
	if j == nil {
		return "none"
	}
	return string(j.Status)
}

type fixture struct {
	t     *testing.T
	ctx   context.Context
	clock *storetest.Clock
	st    *mem.Store
	rnd   *clockrng.Rand
	rec   *recorder
}

func newFixture(t *testing.T) *fixture {
	clock := storetest.NewClock(storetest.Epoch)
	f := &fixture{t: t, ctx: t.Context(), clock: clock, st: mem.New(clock.Now), rnd: clockrng.NewRand(7), rec: &recorder{}}
	f.st.SetCommitHook(f.rec.hook)
	return f
}

func (f *fixture) id() ulid.ULID { return clockrng.NewULID(f.clock.Now(), f.rnd) }

func (f *fixture) do(fn func(tx store.Tx) error) {
	f.t.Helper()
	if err := f.st.InTx(f.ctx, fn); err != nil {
		f.t.Fatal(err)
	}
}

func TestCommitHookListsChangesInOrder(t *testing.T) {
	f := newFixture(t)
	w, a, b := f.id(), f.id(), f.id()
	f.do(func(tx store.Tx) error {
		if err := tx.RegisterWorker(f.ctx, w); err != nil {
			return err
		}
		_, err := tx.TryAcquireLease(f.ctx, w, time.Second)
		return err
	})
	f.do(func(tx store.Tx) error {
		_, err := tx.InsertJobs(f.ctx, []store.NewJob{
			{ID: a, Queue: "y", Payload: []byte(`1`)},
			{ID: b, Queue: "x", Payload: []byte(`2`)},
		})
		return err
	})
	f.clock.Advance(time.Second)
	f.do(func(tx store.Tx) error {
		jobs, err := tx.Reserve(f.ctx, w, []string{"x", "y"}, 2)
		if err != nil {
			return err
		}
		if _, err := tx.CompleteJobs(f.ctx, store.Completion{Worker: w, IDs: []ulid.ULID{jobs[1].ID}}); err != nil {
			return err
		}
		if _, err := tx.ExpireLease(f.ctx); err != nil {
			return err
		}
		_, err = tx.TryAcquireLease(f.ctx, w, time.Second)
		return err
	})
	err := f.st.InTx(f.ctx, func(tx store.Tx) error {
		_ = tx.Heartbeat(f.ctx, w)
		return errors.New("abort")
	})
	if err == nil {
		t.Fatal("aborted transaction succeeded")
	}
	f.do(func(tx store.Tx) error { return nil })
	want := []string{
		fmt.Sprintf("at 12:00:00.123456: worker %s false->true lease false->true", short(w)),
		fmt.Sprintf("at 12:00:00.123456: job %s none->available job %s none->available notify available/x notify available/y", short(a), short(b)),
		fmt.Sprintf("at 12:00:01.123456: job %s available->running job %s available->running job %s running->completed lease true->true", short(a), short(b), short(b)),
		"at 12:00:01.123456:",
	}
	if strings.Join(f.rec.commits, "\n") != strings.Join(want, "\n") {
		t.Fatalf("commits:\n%s\nwant:\n%s", strings.Join(f.rec.commits, "\n"), strings.Join(want, "\n"))
	}
}

func TestCommitHookSeesRetentionSetNull(t *testing.T) {
	f := newFixture(t)
	w, job := f.id(), f.id()
	f.do(func(tx store.Tx) error {
		if err := tx.RegisterWorker(f.ctx, w); err != nil {
			return err
		}
		if _, err := tx.InsertJobs(f.ctx, []store.NewJob{{ID: job, Queue: "q", Payload: []byte(`{}`)}}); err != nil {
			return err
		}
		_, err := tx.Reserve(f.ctx, w, []string{"q"}, 1)
		if err != nil {
			return err
		}
		return tx.ShutdownWorker(f.ctx, w)
	})
	f.clock.Advance(time.Hour)
	f.rec.commits = nil
	f.do(func(tx store.Tx) error { _, err := tx.DeleteOldWorkers(f.ctx, time.Minute); return err })
	want := fmt.Sprintf("at 13:00:00.123456: job %s running->running worker %s true->false", short(job), short(w))
	if len(f.rec.commits) != 1 || f.rec.commits[0] != want {
		t.Fatalf("commits %q, want %q", f.rec.commits, want)
	}
}

func TestListenDropsWhenFull(t *testing.T) {
	f := newFixture(t)
	ch, err := f.st.Listen(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range mem.ListenBuffer + 10 {
		f.do(func(tx store.Tx) error {
			_, err := tx.InsertJobs(f.ctx, []store.NewJob{{ID: f.id(), Queue: fmt.Sprint(i), Payload: []byte(`{}`)}})
			return err
		})
	}
	if len(ch) != mem.ListenBuffer {
		t.Fatalf("channel holds %d notifications, want the buffer's %d", len(ch), mem.ListenBuffer)
	}
	if n := <-ch; n.Queue != "0" {
		t.Fatalf("first notification %+v, want queue 0", n)
	}
}

func TestReturnedBytesAreCopies(t *testing.T) {
	f := newFixture(t)
	id := f.id()
	in := []byte(`{"a":1}`)
	f.do(func(tx store.Tx) error {
		_, err := tx.InsertJobs(f.ctx, []store.NewJob{{ID: id, Queue: "q", Payload: in}})
		return err
	})
	in[2] = 'X'
	var got store.Job
	f.do(func(tx store.Tx) (err error) { got, err = tx.GetJob(f.ctx, id); return err })
	got.Payload[2] = 'Y'
	f.do(func(tx store.Tx) (err error) { got, err = tx.GetJob(f.ctx, id); return err })
	if string(got.Payload) != `{"a":1}` {
		t.Fatalf("payload = %s: caller's bytes reached the store", got.Payload)
	}
}

func TestTxAfterInTxReturnsErrTxDone(t *testing.T) {
	f := newFixture(t)
	var kept store.Tx
	f.do(func(tx store.Tx) error { kept = tx; return nil })
	if _, err := kept.Now(f.ctx); !errors.Is(err, mem.ErrTxDone) {
		t.Fatalf("Now on a finished Tx: %v, want ErrTxDone", err)
	}
	if _, err := kept.InsertJobs(f.ctx, []store.NewJob{{ID: f.id(), Queue: "q", Payload: []byte(`1`)}}); !errors.Is(err, mem.ErrTxDone) {
		t.Fatalf("InsertJobs on a finished Tx: %v, want ErrTxDone", err)
	}
}
