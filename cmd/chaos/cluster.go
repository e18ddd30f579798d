package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tickwork/tickwork/internal/freeport"
)

// cluster is a pg_auto_failover formation of the run's own: a monitor and
// two PostgreSQL nodes on free loopback ports, synchronous replication
// (pg_auto_failover's default with one standby), data under a scratch
// directory. Its processes run as the postgres user when the run is root,
// since PostgreSQL refuses to run as root.
type cluster struct {
	dir     string // scratch directory: data directories, configuration, logs
	bin     string // directory of pg_ctl, which pg_autoctl needs
	cred    *syscall.Credential
	monitor *autoctl
	nodes   []*autoctl
}

// autoctl is one pg_autoctl service (the monitor or a node) and its
// current process; proc is nil while the node is stopped.
type autoctl struct {
	name   string
	port   int
	pgdata string
	proc   *exec.Cmd
	done   chan struct{}
}

// monitorSettings shorten the monitor's failure detection from its
// defaults (a node unhealthy after 20 s, health checks every 5 s) so that
// a run takes minutes; docs/FAILOVER.md gives both.
var monitorSettings = map[string]string{
	"pgautofailover.health_check_period":               "1000",
	"pgautofailover.health_check_timeout":              "1000",
	"pgautofailover.health_check_max_retries":          "1",
	"pgautofailover.health_check_retry_delay":          "500",
	"pgautofailover.node_considered_unhealthy_timeout": "5000",
}

// startCluster creates and starts the formation and waits until one node
// is primary and the other its synchronous standby.
func startCluster(ctx context.Context) (c *cluster, err error) {
	bin, err := pgBinDir()
	if err != nil {
		return nil, err
	}
	c = &cluster{bin: bin}
	if c.dir, err = os.MkdirTemp("", "tickwork-failover-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	if err := c.asPostgres(); err != nil {
		return nil, err
	}
	ports, err := freeport.Loopback(3)
	if err != nil {
		return nil, err
	}
	c.monitor = &autoctl{name: "monitor", port: ports[0], pgdata: filepath.Join(c.dir, "monitor")}
	if err := c.run(c.monitor, "create", "monitor", "--pgdata", c.monitor.pgdata, "--pgport", strconv.Itoa(c.monitor.port),
		"--hostname", "127.0.0.1", "--auth", "trust", "--no-ssl", "--run"); err != nil {
		return nil, err
	}
	if err := c.tuneMonitor(ctx); err != nil {
		return nil, err
	}
	for i, port := range ports[1:] {
		n := &autoctl{name: fmt.Sprintf("node%d", i+1), port: port}
		n.pgdata = filepath.Join(c.dir, n.name)
		c.nodes = append(c.nodes, n)
		if err := c.run(n, "create", "postgres", "--pgdata", n.pgdata, "--pgport", strconv.Itoa(port), "--hostname", "127.0.0.1",
			"--name", n.name, "--dbname", "test", "--auth", "trust", "--no-ssl", "--pgctl", filepath.Join(bin, "pg_ctl"),
			"--monitor", c.monitorURL(), "--run"); err != nil {
			return nil, err
		}
		if err := c.waitHealthy(ctx, 3*time.Minute); err != nil {
			return nil, fmt.Errorf("start %s: %w", n.name, err)
		}
	}
	return c, nil
}

// pgBinDir finds the PostgreSQL server binaries pg_auto_failover was
// installed for.
func pgBinDir() (string, error) {
	if _, err := exec.LookPath("pg_autoctl"); err != nil {
		return "", errors.New("pg_autoctl is not installed: apt-get install postgresql-15-auto-failover pg-auto-failover-cli (make chaos-failover does)")
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/lib/pgautofailover.so")
	if len(dirs) == 0 {
		return "", errors.New("no PostgreSQL with the pgautofailover extension under /usr/lib/postgresql: install postgresql-15-auto-failover")
	}
	return filepath.Join(filepath.Dir(filepath.Dir(dirs[len(dirs)-1])), "bin"), nil
}

// asPostgres makes the processes run as the postgres user when this one
// is root, and gives that user the scratch directory.
func (c *cluster) asPostgres() error {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("the cluster runs as the postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	return os.Chown(c.dir, uid, gid)
}

// run starts pg_autoctl with args as the current process of a, in a
// process group of its own so that close can end it with its children.
func (c *cluster) run(a *autoctl, args ...string) error {
	logf, err := os.OpenFile(filepath.Join(c.dir, a.name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command("pg_autoctl", args...)
	c.setup(cmd, true)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start pg_autoctl %s: %w", strings.Join(args[:2], " "), err)
	}
	a.proc, a.done = cmd, make(chan struct{})
	done := a.done
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	return nil
}

// setup makes cmd a pg_autoctl command of the cluster: its user, and
// its configuration and state under the scratch directory. A service gets
// a process group of its own.
func (c *cluster) setup(cmd *exec.Cmd, service bool) {
	cmd.Dir = c.dir
	cmd.Env = append(cleanEnv(), "HOME="+c.dir, "XDG_CONFIG_HOME="+filepath.Join(c.dir, "config"),
		"XDG_DATA_HOME="+filepath.Join(c.dir, "data"), "PATH="+c.bin+":"+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: service, Credential: c.cred}
}

// monitorURL is how the nodes reach the monitor.
func (c *cluster) monitorURL() string {
	return fmt.Sprintf("postgres://autoctl_node@127.0.0.1:%d/pg_auto_failover?sslmode=disable", c.monitor.port)
}

// url is the workers' multi-host URL: pgx tries the nodes in turn and
// keeps the one that takes writes.
func (c *cluster) url() string {
	var hosts []string
	for _, n := range c.nodes {
		hosts = append(hosts, fmt.Sprintf("127.0.0.1:%d", n.port))
	}
	return "postgres://postgres@" + strings.Join(hosts, ",") + "/test?sslmode=disable&target_session_attrs=read-write&connect_timeout=5"
}

// nodeURL reaches one node directly, whatever its role.
func (n *autoctl) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&connect_timeout=2", n.port, db)
}

// terminate asks a's process group to stop: pg_autoctl stops PostgreSQL
// with a fast shutdown and exits.
func (a *autoctl) terminate() {
	if a.proc != nil {
		_ = syscall.Kill(-a.proc.Process.Pid, syscall.SIGTERM)
	}
}

// exited reports whether a's process has ended, and forgets it then.
func (a *autoctl) exited() bool {
	if a.proc == nil {
		return true
	}
	select {
	case <-a.done:
		a.proc = nil
		return true
	default:
		return false
	}
}

// stop ends a's process group gracefully, or kills it after wait.
func (a *autoctl) stop(wait time.Duration) {
	if a.proc == nil {
		return
	}
	pgid := a.proc.Process.Pid
	a.terminate()
	select {
	case <-a.done:
	case <-time.After(wait):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-a.done
	}
	a.proc = nil
}

// close stops every process of the cluster, kills whatever is left that
// still uses its directory, and removes the directory; the logs are
// copied to keep first when it is not empty.
func (c *cluster) close() {
	for _, n := range c.nodes {
		n.stop(30 * time.Second)
	}
	if c.monitor != nil {
		c.monitor.stop(30 * time.Second)
	}
	killLeftovers(c.dir)
	_ = os.RemoveAll(c.dir)
}

// saveLogs copies the cluster's logs into dir.
func (c *cluster) saveLogs(dir string) {
	logs, _ := filepath.Glob(filepath.Join(c.dir, "*.log"))
	for _, l := range logs {
		if b, err := os.ReadFile(l); err == nil {
			_ = os.WriteFile(filepath.Join(dir, "cluster-"+filepath.Base(l)), b, 0o644)
		}
	}
}

// killLeftovers SIGKILLs every process whose command line names dir (a
// postmaster left behind names its data directory) and returns how many.
func killLeftovers(dir string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	n := 0
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), dir) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil && pid != os.Getpid() {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
			}
		}
	}
	return n
}
