package main

import (
	"context"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"

	"github.com/tickwork/tickwork/clockrng"
)

// netKind is one kind of network fault, injected through the Toxiproxy
// proxy of one worker (-net-faults).
type netKind int

const (
	netLatency      netKind = iota // 50–200 ms on every answer, a few seconds
	netBlackhole                   // packets vanish both ways, connections stay open, past the dead threshold
	netReset                       // reset_peer: connections with traffic are reset, mid-transaction
	netBandwidth                   // answers trickle at a few KB/s
	netSlicer                      // answers cut into small delayed slices
	netListenSilent                // the LISTEN connection alone goes silent
	netKinds
)

var netNames = [netKinds]string{"latency 50-200ms", "blackhole past the dead threshold", "reset_peer", "bandwidth limit", "slicer", "LISTEN connection silent"}

// netFault is one network fault, planned, active or over. The times are
// the driver's (wall) and the database's (db), at injection and removal.
type netFault struct {
	kind             netKind
	slot             *slot
	toxics           []toxic
	until            time.Time // wall time it is removed
	wallFrom, wallTo time.Time
	dbFrom, dbTo     time.Time
}

// netChaos injects the network faults of a run and remembers them for the
// report.
type netChaos struct {
	px     *proxies
	rnd    *clockrng.Rand
	plan   []plannedNet
	active []*netFault
	over   []*netFault
	counts [netKinds]int
}

type plannedNet struct {
	at   time.Duration
	kind netKind
}

// Worker settings of a run with network faults: a listener that checks
// its connection every second, connection attempts cut at two seconds and
// keepalives at five, so that faults are noticed within the run.
const (
	netListenCheck = time.Second
	netDialTimeout = 2 * time.Second
	netKeepAlive   = 5 * time.Second
)

// planNet draws the network faults of a chaos phase of length d: one every
// 1 to 3 s from 2 s in (the workers have started by then) until the
// longest fault still ends in the phase, the first six a shuffle of every
// kind so that each happens.
func planNet(rnd *clockrng.Rand, d, deadAfter time.Duration) []plannedNet {
	first := []netKind{netLatency, netBlackhole, netReset, netBandwidth, netSlicer, netListenSilent}
	for i := len(first) - 1; i > 0; i-- {
		j := rnd.IntN(i + 1)
		first[i], first[j] = first[j], first[i]
	}
	var plan []plannedNet
	end := d - deadAfter - 3*time.Second
	for at := rnd.DurationBetween(2*time.Second, 3*time.Second); at < end; at += rnd.DurationBetween(time.Second, 3*time.Second) {
		kind := netKind(rnd.IntN(int(netKinds)))
		if len(plan) < len(first) {
			kind = first[len(plan)]
		}
		plan = append(plan, plannedNet{at: at, kind: kind})
	}
	return plan
}

// tendNet removes the faults whose time is over and injects those due at
// elapsed into the chaos phase.
func (r *run) tendNet(ctx context.Context, elapsed time.Duration) error {
	n := r.net
	now := time.Now()
	for i := 0; i < len(n.active); i++ {
		if f := n.active[i]; !now.Before(f.until) {
			if err := r.lift(ctx, f); err != nil {
				return err
			}
			n.active = append(n.active[:i], n.active[i+1:]...)
			i--
		}
	}
	for len(n.plan) > 0 && elapsed >= n.plan[0].at {
		kind := n.plan[0].kind
		n.plan = n.plan[1:]
		if err := r.injectNet(ctx, kind); err != nil {
			return err
		}
	}
	return nil
}

// liftAll removes every fault still on, at the end of the chaos phase.
func (r *run) liftAll(ctx context.Context) error {
	for _, f := range r.net.active {
		if err := r.lift(ctx, f); err != nil {
			return err
		}
	}
	r.net.active = nil
	return nil
}

func (r *run) lift(ctx context.Context, f *netFault) error {
	if err := r.net.px.remove(ctx, f.toxics); err != nil {
		return err
	}
	f.wallTo = time.Now()
	t, err := r.db.now(ctx)
	if err != nil {
		return err
	}
	f.dbTo = t
	r.net.over = append(r.net.over, f)
	r.logf("network: %s on %s lifted", netNames[f.kind], f.slot.name)
	return nil
}

// injectNet puts a fault of kind on one worker that has none of that kind
// on. A blackhole while another is on becomes latency: one worker at a
// time is cut off, so that the others can declare it dead.
func (r *run) injectNet(ctx context.Context, kind netKind) error {
	n := r.net
	if kind == netBlackhole && n.any(netBlackhole, nil) {
		kind = netLatency
	}
	var free []*slot
	for _, s := range r.fleet.slots {
		if s.alive() && !n.any(kind, s) && !n.any(netBlackhole, s) {
			free = append(free, s)
		}
	}
	if len(free) == 0 {
		return nil
	}
	f := &netFault{kind: kind, slot: free[n.rnd.IntN(len(free))]}
	length, err := r.toxicsFor(f)
	if err != nil {
		return err
	}
	f.wallFrom = time.Now()
	f.until = f.wallFrom.Add(length)
	if f.dbFrom, err = r.db.now(ctx); err != nil {
		return err
	}
	n.active = append(n.active, f)
	n.counts[kind]++
	r.logf("network: %s on %s for %v", netNames[kind], f.slot.name, length.Round(time.Millisecond))
	return nil
}

// any reports whether a fault of kind is on, on s (any worker if nil).
func (n *netChaos) any(kind netKind, s *slot) bool {
	for _, f := range n.active {
		if f.kind == kind && (s == nil || f.slot == s) {
			return true
		}
	}
	return false
}

// toxicsFor adds the toxics of f and returns how long they stay.
func (r *run) toxicsFor(f *netFault) (time.Duration, error) {
	n, rnd := r.net, r.net.rnd
	pool, listen := n.px.pool[f.slot.name], n.px.listen[f.slot.name]
	var specs []toxicSpec
	length := rnd.DurationBetween(3*time.Second, 8*time.Second)
	switch f.kind {
	case netLatency:
		specs = []toxicSpec{{pool, "latency", "downstream", map[string]int64{"latency": 125, "jitter": 75}}}
	case netBlackhole:
		length = r.o.deadAfter + rnd.DurationBetween(time.Second, 2500*time.Millisecond)
		specs = silence(pool, listen)
	case netReset:
		length = rnd.DurationBetween(200*time.Millisecond, 800*time.Millisecond)
		specs = []toxicSpec{{pool, "reset_peer", "downstream", map[string]int64{"timeout": int64(rnd.IntN(50))}}}
	case netBandwidth:
		specs = []toxicSpec{{pool, "bandwidth", "downstream", map[string]int64{"rate": int64(4 + rnd.IntN(29))}}}
	case netSlicer:
		specs = []toxicSpec{{pool, "slicer", "downstream", map[string]int64{"average_size": int64(16 + rnd.IntN(49)), "size_variation": 8, "delay": int64(50 + rnd.IntN(451))}}}
	case netListenSilent:
		length = 2*netListenCheck + rnd.DurationBetween(time.Second, 3*time.Second)
		specs = silence(nil, listen)
	}
	for _, sp := range specs {
		t, err := n.px.add(sp.proxy, sp.typ, sp.stream, sp.attrs)
		if err != nil {
			return 0, err
		}
		f.toxics = append(f.toxics, t)
	}
	return length, nil
}

type toxicSpec struct {
	proxy  *toxiproxy.Proxy
	typ    string
	stream string
	attrs  map[string]int64
}

// silence is a blackhole on each proxy given: the timeout toxic with
// timeout 0 both ways drops every byte and closes nothing.
func silence(proxies ...*toxiproxy.Proxy) []toxicSpec {
	var specs []toxicSpec
	for _, p := range proxies {
		if p == nil {
			continue
		}
		for _, stream := range []string{"upstream", "downstream"} {
			specs = append(specs, toxicSpec{p, "timeout", stream, map[string]int64{"timeout": 0}})
		}
	}
	return specs
}

// netArgs are the flags that route worker name through its proxies.
func (n *netChaos) netArgs(dbURL, appName, name string) []string {
	return []string{
		"-database-url", via(withAppName(dbURL, appName), n.px.pool[name]),
		"-listen-url", via(dbURL, n.px.listen[name]),
		"-listen-check", netListenCheck.String(),
		"-dial-timeout", netDialTimeout.String(),
		"-tcp-keepalive", netKeepAlive.String(),
	}
}

// startNet starts the proxies of a run with -net-faults.
func (r *run) startNet() error {
	var names []string
	for _, s := range r.fleet.slots {
		names = append(names, s.name)
	}
	px, err := newProxies(r.o.databaseURL, names)
	if err != nil {
		return err
	}
	rnd := r.rnd.Child("net")
	r.net = &netChaos{px: px, rnd: rnd, plan: planNet(rnd.Child("plan"), r.o.duration, r.o.deadAfter)}
	return nil
}

// workerArgs are the flags of worker name, routed through its proxies
// when the run has network faults.
func (r *run) workerArgs(name, logPath string) []string {
	args := r.o.workerArgs(r.schema, name, logPath)
	if r.net != nil {
		args = append(args, r.net.netArgs(r.o.databaseURL, workerAppName(r.schema, name), name)...)
	}
	return args
}
