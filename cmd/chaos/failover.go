package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// failoverKind is one fault of the failover scenario (-failover).
type failoverKind int

const (
	foPlanned failoverKind = iota // perform_failover on the monitor (plannedfailover.go)
	foKill                        // kill -9 of the primary's postmaster
	foStop                        // the primary's node stopped for -failover-stop, then started again
	failoverKinds
)

var failoverNames = [failoverKinds]string{"planned failover", "kill -9 of the primary's postmaster", "primary stopped"}

// failoverRun is the state of a run against a pg_auto_failover cluster.
type failoverRun struct {
	c      *cluster
	stop   time.Duration // how long foStop keeps the node down
	ready  *readyWatch
	faults []failoverFault
}

// failoverFault is what one fault did and how long the cluster and the
// workers took to come back, counted from the fault.
type failoverFault struct {
	kind      failoverKind
	at        time.Time
	old, next string        // the primary before and the node that took writes after
	promoted  time.Duration // until a node took writes again (as the driver's probes saw)
	firstJob  time.Duration // until the first job completed on that node
	healthy   time.Duration // until the monitor had a primary and a secondary again
	path      []string      // every node that took writes after the fault, in order
	gaps      []readyGap    // each worker's /readyz
}

// failoverPhase injects the failover faults, in an order the seed draws,
// each once the cluster is healthy and the workers have run a while, and
// goes on until -duration has passed.
func (r *run) failoverPhase(ctx context.Context) error {
	start := time.Now()
	kinds := []failoverKind{foPlanned, foKill, foStop}
	rnd := r.rnd.Child("failover")
	for i := len(kinds) - 1; i > 0; i-- {
		j := rnd.IntN(i + 1)
		kinds[i], kinds[j] = kinds[j], kinds[i]
	}
	for _, k := range kinds {
		if err := r.tendFor(ctx, 4*time.Second); err != nil {
			return err
		}
		f, err := r.failoverOne(ctx, k)
		if err != nil {
			return fmt.Errorf("%s: %w", failoverNames[k], err)
		}
		r.failover.faults = append(r.failover.faults, f)
	}
	if err := r.tendFor(ctx, r.o.duration-time.Since(start)); err != nil {
		return err
	}
	r.chaosTime = time.Since(start)
	return nil
}

// tendFor tends the workers for d while the load goes on.
func (r *run) tendFor(ctx context.Context, d time.Duration) error {
	for end := time.Now().Add(d); time.Now().Before(end); {
		if err := r.tend(ctx); err != nil {
			return err
		}
		r.failover.ready.poll(r.fleet.slots)
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// failoverOne injects one fault and follows the recovery (recovery.go)
// until a node takes writes, a job completed on it, the cluster is
// healthy and every worker is ready again, or a few minutes passed.
func (r *run) failoverOne(ctx context.Context, k failoverKind) (failoverFault, error) {
	c := r.failover.c
	old, oldStart, err := c.waitPrimary(ctx, 30*time.Second)
	if err != nil {
		return failoverFault{}, err
	}
	if old == nil {
		return failoverFault{}, fmt.Errorf("no primary for 30 s before the fault (logs in %s)", c.dir)
	}
	rc := &recovery{r: r, f: failoverFault{kind: k, at: time.Now(), old: old.name}, old: old, oldStart: oldStart, restarted: k != foStop}
	r.failover.ready.reset(rc.f.at)
	r.logf("%s: %s was primary", failoverNames[k], old.name)
	if rc.performed, err = r.injectFailover(ctx, k, old); err != nil {
		return rc.f, err
	}
	for deadline := rc.f.at.Add(r.failover.stop + 4*time.Minute); ; {
		done, err := rc.step(ctx)
		if err != nil || done {
			if err != nil {
				return rc.f, err
			}
			break
		}
		if time.Now().After(deadline) {
			rc.giveUp()
			break
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return rc.f, err
		}
	}
	if err := r.performed(rc.performed); err != nil {
		return rc.f, err
	}
	rc.f.gaps = r.failover.ready.gaps()
	r.judgeReadiness(rc.f)
	if c.droppedSyncSince(ctx, rc.f.at) {
		r.problems = append(r.problems, problem{what: fmt.Sprintf("%s: the pg_auto_failover monitor turned synchronous replication off on %s (wait_primary) while promoting %s; "+
			"commits %s acknowledged meanwhile are lost (a keeper's report raced the failover: docs/FAILOVER.md)", failoverNames[k], old.name, rc.f.next, old.name),
			detail: "the monitor's events since the fault:\n" + c.eventsSince(ctx, rc.f.at)})
	}
	return rc.f, nil
}

// injectFailover carries out the fault. A planned failover's call runs
// in the background, since it may wait for locks; its outcome comes on the
// channel.
func (r *run) injectFailover(ctx context.Context, k failoverKind, old *autoctl) (<-chan error, error) {
	c := r.failover.c
	switch k {
	case foPlanned:
		done := make(chan error, 1)
		go func() { done <- c.plannedFailover(ctx) }()
		return done, nil
	case foKill:
		pid, err := postmasterPID(old.pgdata)
		if err != nil {
			return nil, err
		}
		return nil, syscall.Kill(pid, syscall.SIGKILL)
	case foStop:
		old.terminate() // failoverOne starts it again once it has exited and the time is up
		return nil, nil
	}
	return nil, fmt.Errorf("unknown failover fault %d", k)
}

// performed waits for a planned failover's command, if there was one and
// its outcome has not been taken yet.
func (r *run) performed(done <-chan error) error {
	if done == nil {
		return nil
	}
	select {
	case err := <-done:
		r.performFailed(err)
	case <-time.After(2 * time.Minute):
		return fmt.Errorf("perform_failover has not returned after 2 minutes")
	}
	return nil
}

// performFailed records a planned failover the monitor refused.
func (r *run) performFailed(err error) {
	if err != nil {
		r.problems = append(r.problems, problem{what: "the planned failover failed", detail: err.Error()})
	}
}

// postmasterPID reads the first line of a data directory's postmaster.pid.
func postmasterPID(pgdata string) (int, error) {
	b, err := os.ReadFile(filepath.Join(pgdata, "postmaster.pid"))
	if err != nil {
		return 0, fmt.Errorf("find the postmaster: %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0, fmt.Errorf("postmaster.pid of %s: %q is not a pid", pgdata, first)
	}
	return pid, nil
}

// firstJobAfter returns how long after at the first job completed on node
// n at or after from, the moment the driver saw n take writes (a job it
// completed a little earlier is not counted, so the figure errs long); 0
// while there is none.
func (r *run) firstJobAfter(ctx context.Context, n *autoctl, at, from time.Time) time.Duration {
	var first *time.Time
	err := query(ctx, n.url("test"), func(conn *pgx.Conn) error {
		return conn.QueryRow(ctx, "SELECT min(completed_at) FROM "+r.db.table("jobs")+" WHERE status = 'completed' AND completed_at >= $1", from).Scan(&first)
	})
	if err != nil || first == nil {
		return 0
	}
	return first.Sub(at)
}

// hurryCheckpoint asks node n for an immediate checkpoint: a standby's
// base backup or pg_rewind otherwise waits for a spread one, minutes on a
// quiet test cluster.
func (c *cluster) hurryCheckpoint(ctx context.Context, n *autoctl) {
	if n != nil {
		_ = query(ctx, n.url("test"), func(conn *pgx.Conn) error { _, err := conn.Exec(ctx, "CHECKPOINT"); return err })
	}
}

// node returns the node named name, or nil.
func (c *cluster) node(name string) *autoctl {
	for _, n := range c.nodes {
		if n.name == name {
			return n
		}
	}
	return nil
}
