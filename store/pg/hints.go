package pg

import (
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// A reservation reads jobs_available_idx in reservation order from the
// start of its queue's range, and the start of that range is where the
// entries of every job reserved since the last vacuum lie: the row of a
// reserved job no longer matches the index's predicate, but its entry
// stays until VACUUM removes it. Each reservation steps over all of them
// (about 7 ns an entry here; a queue at 25,000 jobs a second leaves
// 1,500,000 between two autovacuum runs a minute apart), and with two
// lanes every job pass of each lane does.
//
// A Store therefore remembers, for each queue, the reservation key
// (priority, scheduled_at, id) of the last job its last reservation
// picked there, and the next reservation reads the queue's range from
// just after that key. Every row the earlier one read up to there it
// reserved, or stepped over: reserved before, locked by another
// transaction (another lane's reservation in flight, most often), or not
// yet visible to it. A row before the key can become available later
// only by an insert, a promotion, a retry or snooze without delay, or a
// rollback. (Starting at the first job it picked instead would have
// every reservation read again the rows of the one before and of the
// other lanes' in flight, locking each one it could not skip as dead.)
// The hints are therefore
//
//   - forgotten when this Store does one of those that may put a row
//     below one, or rolls back a transaction (so that a single Store, the
//     simulator's and the differential test's, reserves exactly as if it
//     read every range from its start);
//   - learned only from a reservation that took all it asked for (a
//     backlog), and only if none of the above happened since it began;
//     any other reservation reads from the start;
//   - ignored by every fullScanEvery-th reservation, which reads from the
//     start and learns anew: a row below a hint that another process made
//     available (an urgent job, a late promotion, a rollback), or that a
//     caller's transaction returned by rolling back after this Store's
//     part of it (InPgxTx) succeeded, waits at most that many of this
//     Store's reservations while the backlog lasts.
//
// So under a backlog the order of reservation is kept as before but for
// such rows, which may be overtaken for a few passes, as SKIP LOCKED and
// several workers already allow; without a backlog nothing changes.
type reserveHints struct {
	mu    sync.Mutex
	epoch uint64            // bumped by forget: a reservation that began before learns nothing
	since int               // reservations since the last one that read from the start
	from  map[string]jobKey // queue → the next reservation reads after this key
}

// fullScanEvery is how often a reservation ignores the hints (see
// reserveHints). A full scan reads the dead entries of every job reserved
// since the last vacuum, so their share grows with the jobs done: over
// 100,000 jobs at 100 in flight on two lanes, a pass read 38 to 49 blocks
// of jobs_available_idx on average with one in 8, 12 to 14 with one in 32
// (of about 840 index blocks a pass reads in all). One in 32, at one to
// four milliseconds a pass during a backlog, still bounds an overtaken
// row's wait to about a tenth of a second.
const fullScanEvery = 32

// jobKey is a job's place in reservation order.
type jobKey struct {
	priority    int16
	scheduledAt time.Time
	id          ulid.ULID
}

func keyOf(j store.Job) jobKey {
	return jobKey{priority: int16(j.Priority), scheduledAt: j.ScheduledAt, id: j.ID}
}

func (k jobKey) before(o jobKey) bool {
	if k.priority != o.priority {
		return k.priority < o.priority
	}
	if !k.scheduledAt.Equal(o.scheduledAt) {
		return k.scheduledAt.Before(o.scheduledAt)
	}
	return k.id.Compare(o.id) < 0
}

// hintArgs are the reservation's $5, $6 and $7: for each of its queues,
// in the order of $3, the key it starts reading after.
type hintArgs struct {
	priorities []int16
	times      []pgtype.Timestamptz
	ids        []pgtype.UUID
}

// start returns the keys after which a reservation of queues (sorted,
// each once) reads each, and the epoch it must learn with. A queue
// without a hint is read from before any job's key.
func (h *reserveHints) start(queues []string) (hintArgs, uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	args := hintArgs{make([]int16, len(queues)), make([]pgtype.Timestamptz, len(queues)), make([]pgtype.UUID, len(queues))}
	full := h.since >= fullScanEvery-1 && !mutant.On(mutant.PGHintsKept)
	if full {
		h.since = 0
	} else {
		h.since++
	}
	for i, q := range queues {
		k, ok := h.from[q]
		if full || !ok {
			args.priorities[i] = store.MinPriority - 1
			args.times[i] = pgtype.Timestamptz{InfinityModifier: pgtype.NegativeInfinity, Valid: true}
			args.ids[i] = pgtype.UUID{Valid: true}
			continue
		}
		args.priorities[i], args.times[i], args.ids[i] = k.priority, pgtype.Timestamptz{Time: k.scheduledAt, Valid: true}, idArg(k.id)
	}
	return args, h.epoch
}

// learn records, after a reservation that began at epoch and asked for
// limit jobs, where it stopped picking in each queue: the last job it
// reserved there. A reservation that took fewer than limit, or that
// began before the last forget, leaves no hint.
func (h *reserveHints) learn(epoch uint64, limit int, jobs []store.Job) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if epoch != h.epoch {
		return
	}
	if len(jobs) < limit && !mutant.On(mutant.PGHintsKept) {
		clear(h.from)
		return
	}
	if h.from == nil {
		h.from = map[string]jobKey{}
	}
	if !mutant.On(mutant.PGHintsKept) {
		clear(h.from)
	}
	for _, j := range jobs {
		if k, ok := h.from[j.Queue]; !ok || k.before(keyOf(j)) {
			h.from[j.Queue] = keyOf(j)
		}
	}
}

// forget drops every hint and makes the reservations in flight learn
// nothing: a row may have become available below a hint.
func (h *reserveHints) forget() {
	if mutant.On(mutant.PGHintsKept) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.epoch++
	clear(h.from)
}

// reset returns the hints to a new Store's: none, and the next full scan
// as far away, so that what a Store does next does not depend on what it
// did before.
func (h *reserveHints) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.epoch++
	h.since = 0
	clear(h.from)
}

// below reports whether one of jobs, being inserted, may sort below the
// hint of its queue: it is available at once (no time, or one not after
// the hint's scheduled_at; its scheduled_at is then the transaction's
// now, which may be the hint's) and not of a larger priority number.
func (h *reserveHints) below(jobs []store.NewJob) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, j := range jobs {
		k, ok := h.from[j.Queue]
		if !ok || int16(j.Priority) > k.priority {
			continue
		}
		if int16(j.Priority) < k.priority || j.ScheduledAt.IsZero() || !j.ScheduledAt.After(k.scheduledAt) {
			return true
		}
	}
	return false
}

// madeAvailable forgets the hints for a transaction that wrote rows that
// may sort below one, now and again once it commits: a reservation of
// this Store that begins in between does not see the rows yet and may
// learn a hint past them.
func (t *tx) madeAvailable() {
	t.forgetAtCommit = true
	t.s.hints.forget()
}
