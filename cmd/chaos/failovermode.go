package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tickwork/tickwork/internal/freeport"
)

// failoverMain carries out -failover: it starts the cluster, makes -seeds
// runs on it, each in a fresh schema, and tears the cluster down. It
// returns the exit status: 1 if any run found a violation or failed.
func failoverMain(ctx context.Context, o options, stdout, stderr io.Writer) int {
	start := time.Now()
	c, err := startCluster(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "chaos: start the pg_auto_failover cluster: %v\n", err)
		return 1
	}
	defer func() {
		c.close()
		if n := killLeftovers(c.dir); n > 0 {
			fmt.Fprintf(stderr, "chaos: %d processes of the cluster outlived its shutdown and were killed\n", n)
		}
	}()
	fmt.Fprintf(stdout, "chaos: pg_auto_failover cluster up in %v: %s; %s\n", time.Since(start).Round(time.Millisecond), c.url(), c.replication(ctx))
	ports, err := freeport.Loopback(o.workers)
	if err != nil {
		fmt.Fprintf(stderr, "chaos: %v\n", err)
		return 1
	}
	addrs := map[string]string{}
	for i, p := range ports {
		addrs[fmt.Sprintf("w%d", i+1)] = net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
	}
	o.databaseURL = c.url()
	if o.workerBin == "" { // one build for every seed
		dir, err := os.MkdirTemp("", "tickwork-failover-bin-")
		if err != nil {
			fmt.Fprintf(stderr, "chaos: %v\n", err)
			return 1
		}
		defer os.RemoveAll(dir)
		if o.workerBin, err = buildWorker(ctx, dir, o.mutant != ""); err != nil {
			fmt.Fprintf(stderr, "chaos: %v\n", err)
			return 1
		}
	}
	code := 0
	for i := range o.seeds {
		oi := o
		oi.seed = o.seed + uint64(i)
		oi.cluster = &failoverRun{c: c, stop: o.failoverStop, ready: newReadyWatch(addrs)}
		if o.workDir != "" && o.seeds > 1 {
			oi.workDir = filepath.Join(o.workDir, fmt.Sprintf("seed%d", oi.seed))
		}
		sum, err := chaos(ctx, oi, stdout)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "chaos: seed %d: %v\n", oi.seed, err)
			return 1
		case sum.found > 0:
			code = 1
		}
		if err := c.waitHealthy(ctx, 3*time.Minute); err != nil {
			fmt.Fprintf(stderr, "chaos: after seed %d: %v\n", oi.seed, err)
			return 1
		}
	}
	fmt.Fprintf(stdout, "chaos -failover: %d seeds from %d in %v\n", o.seeds, o.seed, time.Since(start).Round(time.Second))
	return code
}

// withOps gives a worker of the failover scenario its /readyz address.
func (r *run) withOps(name string, args []string) []string {
	if r.failover == nil {
		return args
	}
	return append(args, "-metrics-addr", r.failover.ready.addrs[name]) // the last -metrics-addr wins
}

// reportFailover prints, for each fault, how long the cluster and the
// workers took to come back.
func (r *run) reportFailover(w io.Writer) {
	if r.failover == nil {
		return
	}
	for _, f := range r.failover.faults {
		fmt.Fprintf(w, "failover: %s of %s: %s took writes after %v (primaries: %s), first job completed on it after %v, cluster healthy after %v; /readyz %s\n",
			failoverNames[f.kind], f.old, f.next, ms(f.promoted), strings.Join(f.path, ", "), ms(f.firstJob), ms(f.healthy), describeGaps(f.gaps))
	}
}

// describeGaps sums up the workers' /readyz around a fault.
func describeGaps(gaps []readyGap) string {
	var parts []string
	for _, g := range gaps {
		switch {
		case g.notReady == 0:
			parts = append(parts, g.worker+" ready throughout")
		case g.ready == 0:
			parts = append(parts, fmt.Sprintf("%s not ready from %v, not back", g.worker, ms(g.notReady)))
		default:
			parts = append(parts, fmt.Sprintf("%s not ready %v–%v", g.worker, ms(g.notReady), ms(g.ready)))
		}
	}
	if len(gaps) > 0 && gaps[0].reason != "" {
		parts = append(parts, fmt.Sprintf("(%s said %q)", gaps[0].worker, clip(gaps[0].reason, 160)))
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

// clip shortens s to n bytes.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
