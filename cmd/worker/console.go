package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/tickwork/tickwork/console"
)

const consoleSynopsis = `worker console [-addr 127.0.0.1:8080] [-admin-token TOKEN] [flags]

Serves the operator's web console for -schema until SIGTERM or SIGINT,
then exits 0, also when the signal comes while it still connects to the
database. It shows the queues, the workers and the jobs, each page with a
JSON twin under /api/.
It runs no handlers. It is read-only unless an admin token is set (better
through TICKWORK_ADMIN_TOKEN than on the command line, where other users
can see it); then a person who logs in with it, or a program that sends it
as "Authorization: Bearer TOKEN", can retry and cancel jobs and pause and
resume queues.

Pages need no login, so the console answers only to IP addresses,
localhost, the host of -addr and the names in -allowed-hosts. A login
lasts until logout, -session-idle unused or -session-max, in this process
only: a restart logs everyone out. Failed logins are slowed per client
address and logged. It serves plain HTTP: keep it on loopback, or behind
an SSH tunnel or a TLS proxy (it warns otherwise).`

// consoleConfig is how worker console, and worker run with -admin-addr,
// serve the console.
type consoleConfig struct {
	addr, token  string
	allowedHosts string // comma-separated
	sessionIdle  time.Duration
	sessionMax   time.Duration
}

func (c *cli) consoleCmd(ctx context.Context, args []string) error {
	fs, db := c.dbFlagSet("worker console", consoleSynopsis)
	var cfg consoleConfig
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "address to serve the console on (only this machine by default)")
	fs.StringVar(&cfg.token, "admin-token", "", fmt.Sprintf("token that enables the actions: retry, cancel, pause, resume (empty: read-only; at least %d bytes, e.g. from openssl rand -hex 16)", console.MinAdminToken))
	fs.StringVar(&cfg.allowedHosts, "allowed-hosts", "", "comma-separated host names the console answers to besides IP addresses, localhost and the -addr host; a request naming another gets 421 (against DNS rebinding)")
	durationVar(fs, &cfg.sessionIdle, "session-idle", console.DefaultSessionIdle, time.Minute, 24*time.Hour, "log a browser out after this long unused")
	durationVar(fs, &cfg.sessionMax, "session-max", console.DefaultSessionMax, time.Minute, 30*24*time.Hour, "log a browser out this long after it logged in, however busy")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	log := c.defaultLogger()
	// Its actions write rows: it refuses a schema this release cannot
	// write, and waits out a connection lost while it checks, as run does.
	st, err := c.openWriterStore(ctx, db, log)
	if stoppedWhileStarting(ctx, err) {
		log.Info("console stopped before it started: a signal came while it connected")
		return nil
	}
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	defer st.Close()
	stop, err := startConsole(st, cfg, log)
	if err != nil {
		return err
	}
	<-ctx.Done()
	return stop()
}

// startConsole serves the console as cfg says in the background (an
// address in use is an error at once) until the returned stop is called;
// stop returns when the server has shut down.
func startConsole(st openedStore, cfg consoleConfig, log *slog.Logger) (stop func() error, err error) {
	srv, err := console.New(console.Options{Store: st, AdminToken: cfg.token, AllowedHosts: allowedHosts(cfg),
		SessionIdle: cfg.sessionIdle, SessionMax: cfg.sessionMax, Logger: log})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- console.Serve(ctx, cfg.addr, srv, func(a string) {
			if !onLoopback(a) { // before the line that says it listens, which callers wait for
				log.Warn("the console is reachable beyond this machine over plain HTTP: its pages, the admin token and the session cookie cross the network unencrypted; "+
					"listen on 127.0.0.1 and reach it through an SSH tunnel, or put a TLS proxy in front", "addr", a)
			}
			log.Info("console listening", "url", "http://"+a+"/", "schema", st.Schema(), "read_only", cfg.token == "")
			close(ready)
		})
	}()
	select {
	case <-ready:
		return func() error { cancel(); return <-done }, nil
	case err := <-done:
		cancel()
		return nil, err
	}
}

// allowedHosts is cfg's -allowed-hosts list plus the host of -addr when it
// is a name.
func allowedHosts(cfg consoleConfig) []string {
	var hosts []string
	for _, h := range strings.Split(cfg.allowedHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	if host, _, err := net.SplitHostPort(cfg.addr); err == nil && host != "" {
		if _, err := netip.ParseAddr(host); err != nil {
			hosts = append(hosts, host)
		}
	}
	return hosts
}

// onLoopback reports whether the listener's address addr (host:port) is
// reachable from this machine only.
func onLoopback(addr string) bool {
	ap, err := netip.ParseAddrPort(addr)
	return err == nil && ap.Addr().IsLoopback()
}
