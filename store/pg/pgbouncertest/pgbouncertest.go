// Package pgbouncertest starts Debian's pgbouncer in transaction pooling
// mode in front of a test database, so that tests can run the store
// through it. Without pgbouncer installed, Start fails the test when the CI
// environment variable is set and skips it otherwise, saying how to
// install it.
package pgbouncertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/freeport"
	"github.com/tickwork/tickwork/internal/long"
)

// ServerConns is how many server connections the bouncer keeps per
// database and user: fewer than a store's pool has client connections, so
// that consecutive transactions of one client land on different server
// connections.
const ServerConns = 2

// Start runs pgbouncer on a free loopback port in front of the PostgreSQL
// that upstream (a postgres:// URL) names, in transaction pooling mode,
// and stops it when the test ends. It returns upstream with its host and
// port replaced by the bouncer's.
func Start(t testing.TB, upstream string) string {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		long.Unavailable(t, "pgbouncer is not installed (apt-get install -y pgbouncer): "+err.Error())
	}
	cfg, err := pgconn.ParseConfig(upstream)
	if err != nil {
		t.Fatalf("pgbouncertest: parse the upstream URL: %v", err)
	}
	ports, err := freeport.Loopback(1)
	if err != nil {
		t.Fatalf("pgbouncertest: %v", err)
	}
	port := ports[0]
	// Not t.TempDir: its parent directory is private to the test's user,
	// and pgbouncer may run as another (see start).
	dir, err := os.MkdirTemp("", "pgbouncertest")
	if err != nil {
		t.Fatalf("pgbouncertest: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	ini, err := writeConfig(dir, cfg, port)
	if err != nil {
		t.Fatalf("pgbouncertest: %v", err)
	}
	cmd, err := start(bin, dir, ini)
	if err != nil {
		t.Fatalf("pgbouncertest: start pgbouncer: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	url := fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", cfg.User, port, cfg.Database)
	if err := waitReady(url); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
		t.Fatalf("pgbouncertest: pgbouncer did not answer on port %d: %v\n%s", port, err, log)
	}
	return url
}

// writeConfig writes pgbouncer.ini and its user list into dir.
func writeConfig(dir string, up *pgconn.Config, port int) (string, error) {
	server := fmt.Sprintf("host=%s port=%d", up.Host, up.Port)
	if up.Password != "" {
		server += " password=" + up.Password
	}
	ini := fmt.Sprintf(`[databases]
* = %s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
default_pool_size = %d
max_client_conn = 500
ignore_startup_parameters = synchronous_commit
logfile = %s
pidfile = %s
`, server, port, filepath.Join(dir, "users.txt"), ServerConns, filepath.Join(dir, "pgbouncer.log"), filepath.Join(dir, "pgbouncer.pid"))
	path := filepath.Join(dir, "pgbouncer.ini")
	if err := os.WriteFile(path, []byte(ini), 0o600); err != nil {
		return "", err
	}
	users := strconv.Quote(up.User) + ` ""` + "\n"
	return path, os.WriteFile(filepath.Join(dir, "users.txt"), []byte(users), 0o600)
}

// start launches pgbouncer. It refuses to run as root, so as root it runs
// as the postgres (or nobody) user, which then needs to own dir.
func start(bin, dir, ini string) (*exec.Cmd, error) {
	args := []string{ini}
	if os.Geteuid() == 0 {
		u, err := unprivileged()
		if err != nil {
			return nil, err
		}
		if err := chownAll(dir, u); err != nil {
			return nil, err
		}
		args = []string{"-u", u.Username, ini}
	}
	cmd := exec.Command(bin, args...)
	return cmd, cmd.Start() // its log goes to the logfile; stdout and stderr are discarded
}

func unprivileged() (*user.User, error) {
	for _, name := range []string{"postgres", "nobody"} {
		if u, err := user.Lookup(name); err == nil {
			return u, nil
		}
	}
	return nil, fmt.Errorf("running as root and neither user postgres nor nobody exists for pgbouncer to run as")
}

func chownAll(dir string, u *user.User) error {
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(path, uid, gid)
	})
}

// waitReady connects through the bouncer until a query answers, for up to
// ten seconds of the real clock (the store tree reads time only through
// clockrng).
func waitReady(url string) error {
	clock := clockrng.Real()
	ctx, cancel := clock.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		conn, err := pgconn.Connect(ctx, url)
		if err == nil {
			err = conn.Exec(ctx, "SELECT 1").Close()
			_ = conn.Close(ctx)
			if err == nil {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return err
		case <-clock.After(50 * time.Millisecond):
		}
	}
}
