package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/tickwork/tickwork/console"
)

const consoleSynopsis = `worker console [-addr 127.0.0.1:8080] [-admin-token TOKEN] [flags]

Serves the operator's web console for -schema until SIGTERM or SIGINT: the
queues, the workers and the jobs, each page with a JSON twin under /api/.
It runs no handlers. It is read-only unless an admin token is set (better
through TICKWORK_ADMIN_TOKEN than on the command line, where other users
can see it); then a person who logs in with it, or a program that sends it
as "Authorization: Bearer TOKEN", can retry and cancel jobs and pause and resume queues.`

func (c *cli) consoleCmd(ctx context.Context, args []string) error {
	fs, db := c.dbFlagSet("worker console", consoleSynopsis)
	addr := fs.String("addr", "127.0.0.1:8080", "address to serve the console on (only this machine by default)")
	token := fs.String("admin-token", "", "token that enables the actions: retry, cancel, pause, resume (empty: read-only)")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	log := c.defaultLogger()
	st, err := c.openStore(ctx, db, log)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.CheckMigrated(ctx); err != nil {
		return explainStoreError(fmt.Errorf("console: %w", err), db.schema)
	}
	stop, err := startConsole(st, *addr, *token, log)
	if err != nil {
		return err
	}
	<-ctx.Done()
	return stop()
}

// startConsole serves the console on addr in the background (an address in
// use is an error at once) until the returned stop is called; stop returns
// when the server has shut down.
func startConsole(st openedStore, addr, token string, log *slog.Logger) (stop func() error, err error) {
	srv, err := console.New(console.Options{Store: st, AdminToken: token, Logger: log})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- console.Serve(ctx, addr, srv, func(a string) {
			log.Info("console listening", "url", "http://"+a+"/", "schema", st.Schema(), "read_only", token == "")
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
