package interleave

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store/pg"
)

// Options configure a Controller.
type Options struct {
	// Scheduler picks the round trip that goes next; nil means Random on
	// the seed's "schedule" child.
	Scheduler Scheduler
	// Clock paces the polling of the server while a released round trip
	// runs; it never decides anything. nil means clockrng.Real().
	Clock clockrng.Clock
	// DeadlockTimeout is set on every gated session, far beyond any run,
	// so that only the controller breaks deadlocks. Empty means "1h".
	DeadlockTimeout string
	// Schema, when set, is written {schema} in the statements of events,
	// so that runs on different schemas (each test has its own) record the
	// same events.
	Schema string
}

// Controller interleaves the round trips of gated connections: it lets one
// go at a time, waits until every actor is parked at the gate, blocked on a
// lock or finished, breaks deadlocks, and asks its Scheduler which pending
// round trip goes next. Given the same seed and the same actors it makes the
// same choices and records the same events.
type Controller struct {
	admin   *pgx.Conn // ungated: asks the server who waits on whom
	sched   Scheduler
	victims *clockrng.Rand
	clk     clockrng.Clock
	opts    Options

	mu      sync.Mutex
	cond    *sync.Cond    // wakes parked writers
	changed chan struct{} // wakes the controller
	version uint64        // bumped on every change of a connection or actor
	gating  bool
	actors  map[string]int // label -> goroutines running
	count   map[string]int // label -> connections adopted so far
	conns   []*conn        // adopted; a closed one leaves once reported
	zombies []int32        // server pids of closed connections, maybe not yet ended
	events  []Event
	wg      sync.WaitGroup
}

// New returns a controller that asks the server about locks through admin,
// an ungated connection to the same database that only the controller
// uses, and draws its choices from seed.
func New(admin *pgx.Conn, seed *clockrng.Rand, opts Options) *Controller {
	if opts.Scheduler == nil {
		opts.Scheduler = Random(seed.Child("schedule"))
	}
	if opts.Clock == nil {
		opts.Clock = clockrng.Real()
	}
	if opts.DeadlockTimeout == "" {
		opts.DeadlockTimeout = "1h"
	}
	c := &Controller{
		admin: admin, sched: opts.Scheduler, victims: seed.Child("victims"), clk: opts.Clock, opts: opts,
		changed: make(chan struct{}, 1),
		actors:  map[string]int{},
		count:   map[string]int{},
	}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// Gate returns the pg.Gate for the store of one actor (a worker process):
// set it as pg.Options.Gate, and run that actor's work with Go(label, ...).
func (ctl *Controller) Gate(label string) pg.Gate { return gate{ctl, label} }

type gate struct {
	ctl   *Controller
	label string
}

func (g gate) BeforeConnect(_ context.Context, cc *pgx.ConnConfig) error {
	wrap := cc.AfterNetConnect
	cc.AfterNetConnect = func(ctx context.Context, cfg *pgconn.Config, nc net.Conn) (net.Conn, error) {
		if wrap != nil {
			var err error
			if nc, err = wrap(ctx, cfg, nc); err != nil {
				return nil, err
			}
		}
		return &conn{Conn: nc, ctl: g.ctl, label: g.label}, nil
	}
	cc.RuntimeParams["deadlock_timeout"] = g.ctl.opts.DeadlockTimeout
	return nil
}

func (g gate) AfterConnect(_ context.Context, pc *pgx.Conn) error {
	c, ok := pc.PgConn().Conn().(*conn)
	if !ok {
		return fmt.Errorf("interleave: connection of %q is not the gate's (was AfterNetConnect replaced?)", g.label)
	}
	g.ctl.adopt(c, pc.PgConn().PID())
	return nil
}

func (ctl *Controller) adopt(c *conn, pid uint32) {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	c.ord = ctl.count[c.label]
	ctl.count[c.label]++
	c.id = c.label + "#" + strconv.Itoa(c.ord)
	c.pid = pid
	ctl.conns = append(ctl.conns, c)
	c.armed.Store(true)
}

// Go runs fn as actor label, the label of the gate of the store fn uses,
// and turns gating on. One goroutine per label at a time: the order of two
// round trips of the same actor would otherwise be the runtime's choice.
func (ctl *Controller) Go(label string, fn func()) {
	ctl.mu.Lock()
	if ctl.actors[label] > 0 {
		ctl.mu.Unlock()
		panic(fmt.Sprintf("interleave: actor %q is already running", label))
	}
	ctl.actors[label]++
	ctl.gating = true
	ctl.touchLocked()
	ctl.mu.Unlock()
	ctl.wg.Add(1)
	go func() {
		defer ctl.wg.Done()
		defer func() {
			ctl.mu.Lock()
			ctl.actors[label]--
			ctl.touchLocked()
			ctl.mu.Unlock()
		}()
		fn()
	}()
}

// Run steps until every actor has returned, then turns gating off (the
// stores' later round trips go straight through) and returns.
func (ctl *Controller) Run(ctx context.Context) error {
	defer func() {
		ctl.mu.Lock()
		ctl.gating = false
		ctl.cond.Broadcast()
		ctl.mu.Unlock()
		ctl.wg.Wait()
	}()
	for {
		more, err := ctl.Step(ctx)
		if err != nil || !more {
			return err
		}
	}
}

// Step settles (see Settle) and releases the round trip the scheduler
// picks. It reports false when every actor has returned.
func (ctl *Controller) Step(ctx context.Context) (bool, error) {
	pending, err := ctl.Settle(ctx)
	if err != nil || len(pending) == 0 {
		return false, err
	}
	i := ctl.sched.Pick(pending)
	if i < 0 || i >= len(pending) {
		return false, fmt.Errorf("interleave: scheduler picked %d of %d pending round trips", i, len(pending))
	}
	return true, ctl.Release(pending[i].Conn)
}

// Settle waits until nothing moves without the controller, breaking every
// deadlock on the way, and returns the round trips parked at the gate, in
// connection order. None means every actor has returned; an error means
// some wait on what no actor will release.
func (ctl *Controller) Settle(ctx context.Context) ([]Pending, error) {
	for {
		v, err := ctl.settle(ctx)
		if err != nil {
			return nil, err
		}
		broke, err := ctl.breakDeadlock(ctx)
		if err != nil {
			return nil, err
		}
		if broke {
			continue
		}
		if pending, settled, err := ctl.pendingAt(v); settled {
			return pending, err
		}
	}
}

// pendingAt returns the round trips parked at the gate if the state is
// still the version settle found settled (settled); if anything moved
// since, the caller settles again. A round trip given up at the gate (its
// context cancelled) leaves it on its writer's goroutine: read after that,
// without the check, the actor looked busy with nothing parked nor sent,
// and Settle reported it stuck on a lock (TestCancelledContextLeavesTheGate
// under -race, twice in a row).
func (ctl *Controller) pendingAt(v uint64) (pending []Pending, settled bool, err error) {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	if ctl.version != v {
		return nil, false, nil
	}
	for _, c := range ctl.sortedLocked() {
		if c.phase == parked && !c.closed {
			pending = append(pending, Pending{Conn: c.id, Statements: c.trip, Commits: c.held || !c.hold && commits(c.inTx, c.trip)})
		}
	}
	if busy := ctl.busyLocked(); len(pending) == 0 && len(busy) > 0 {
		return nil, true, fmt.Errorf("interleave: actors %v neither finish nor send: they wait on locks no running actor releases", busy)
	}
	return pending, true, nil
}

// Release lets the parked round trip of connection id ("label#n") go.
func (ctl *Controller) Release(id string) error {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	i := slices.IndexFunc(ctl.conns, func(c *conn) bool { return c.id == id && !c.closed })
	if i < 0 || ctl.conns[i].phase != parked {
		return fmt.Errorf("interleave: no round trip of %s is parked", id)
	}
	c := ctl.conns[i]
	c.phase = sent
	ctl.record(Event{Kind: Release, Conn: c.id, Statements: c.trip, Open: ctl.openLocked()})
	if c.held {
		ctl.writeHeldLocked(c)
	}
	ctl.cond.Broadcast()
	return nil
}

// openLocked lists the connections with a transaction open, as their last
// answered round trip left them.
func (ctl *Controller) openLocked() []string {
	var open []string
	for _, c := range ctl.sortedLocked() {
		if c.inTx && !c.closed && !c.terminated { // a terminated one's transaction is gone, closed or not yet
			open = append(open, c.id)
		}
	}
	return open
}

// Events returns what happened so far, in order.
func (ctl *Controller) Events() []Event {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	return slices.Clone(ctl.events)
}

// EventsSince returns the events recorded after the first n, in order: a
// caller that settles often reads only what is new.
func (ctl *Controller) EventsSince(n int) []Event {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	return slices.Clone(ctl.events[min(n, len(ctl.events)):])
}

func (ctl *Controller) record(e Event) { ctl.events = append(ctl.events, e) }

// touchLocked notes a change the controller may be waiting for.
func (ctl *Controller) touchLocked() {
	ctl.version++
	select {
	case ctl.changed <- struct{}{}:
	default:
	}
}

// sortedLocked is the open connections in id order, the order every choice
// is drawn in.
func (ctl *Controller) sortedLocked() []*conn {
	out := slices.Clone(ctl.conns)
	slices.SortFunc(out, func(a, b *conn) int {
		return cmp.Or(cmp.Compare(a.label, b.label), cmp.Compare(a.ord, b.ord))
	})
	return out
}

func (ctl *Controller) busyLocked() []string {
	var busy []string
	for label, n := range ctl.actors {
		if n > 0 {
			busy = append(busy, label)
		}
	}
	slices.Sort(busy)
	return busy
}

// pollDelays bound how often the server is asked about a running round
// trip. A question is a round trip of its own that reads the server's lock
// table, so the first waits a millisecond, by when most answers have come.
// Asked after 100 µs, the controller put 1.65 questions to the server for
// each round trip it released (simulate -store pg -interleave, 24 seeds
// on a loaded machine: 29,513 for 17,881); after 1 ms, 0.75 (13,513). A
// round trip that waits on a lock is found 0.9 ms later, which a run of
// hundreds of them does not notice.
const (
	minPoll = time.Millisecond
	maxPoll = 5 * time.Millisecond
)

// unschema writes Options.Schema as {schema} in statements.
func (ctl *Controller) unschema(statements []string) []string {
	if ctl.opts.Schema == "" {
		return statements
	}
	out := make([]string, len(statements))
	for i, s := range statements {
		out[i] = ctl.unschemaOne(s)
	}
	return out
}

func (ctl *Controller) unschemaOne(s string) string {
	if ctl.opts.Schema == "" {
		return s
	}
	return strings.ReplaceAll(s, pgx.Identifier{ctl.opts.Schema}.Sanitize()+".", "{schema}.")
}
