package pg

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// ListenBuffer is the capacity of a Listen channel; a notification that
// finds it full is dropped, as the contract allows.
const ListenBuffer = 256

// listenBackoff spaces reconnection attempts of a dropped listener.
var listenBackoff = clockrng.Backoff{Base: 100 * time.Millisecond, Factor: 2, Max: 5 * time.Second}

// Listen opens a dedicated connection (to Options.ListenURL when set) that
// LISTENs on the schema's available, stepdown and cancel channels and returns the
// notifications it receives. It returns an error if that first connection
// fails, and ErrNoListen through a transaction pooler without a ListenURL.
// Later, when the connection drops, it reconnects with backoff (timed by
// Options.Clock); notifications sent meanwhile are lost, which workers
// cover by polling.
// The channel is closed, and the connection with it, when ctx is done.
func (s *Store) Listen(ctx context.Context) (<-chan store.Notification, error) {
	conn, err := s.listenConnect(ctx)
	if err != nil {
		return nil, err
	}
	out := make(chan store.Notification, ListenBuffer)
	go s.listenLoop(ctx, conn, out)
	return out, nil
}

// listenConnect opens a connection named after the schema in
// pg_stat_activity and LISTENs on the store's channels.
func (s *Store) listenConnect(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := s.listenConfig()
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["application_name"] = "tickwork listen " + s.schema
	target := s.listenTarget()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, connectErrorAt("listen", err, target)
	}
	listen := "LISTEN " + quoteIdent(s.chAvailable) + "; LISTEN " + quoteIdent(s.chStepdown) + "; LISTEN " + quoteIdent(s.chCancel)
	if _, err := conn.Exec(ctx, listen); err != nil {
		_ = conn.Close(ctx)
		return nil, fmt.Errorf("listen on %s: %w", target, classifyAt(err, target))
	}
	return conn, nil
}

// listenTarget names the listener's server for messages: a listen URL's,
// not the pool's, so that a wrong listen URL does not read as a fault of
// the main one.
func (s *Store) listenTarget() string {
	if s.listenCfg != nil {
		return "the listen URL's " + describe(s.listenCfg, s.schema)
	}
	return s.target
}

func (s *Store) listenLoop(ctx context.Context, conn *pgx.Conn, out chan<- store.Notification) {
	defer close(out)
	for attempt := 0; ; {
		if conn != nil {
			err := s.relay(ctx, conn, out)
			_ = conn.Close(ctx)
			conn = nil
			if ctx.Err() != nil {
				return
			}
			s.opts.Logger.Warn("tickwork: listen connection lost; reconnecting", "target", s.listenTarget(), "err", err)
			attempt = 0
		}
		if !s.sleep(ctx, listenBackoff.Delay(attempt, nil)) {
			return
		}
		attempt++
		var err error
		if conn, err = s.listenConnect(ctx); err != nil {
			s.opts.Logger.Warn("tickwork: listen reconnect failed", "attempt", attempt, "err", err)
			continue
		}
		s.opts.Logger.Info("tickwork: listen connection restored", "target", s.listenTarget())
	}
}

// relay passes notifications from conn to out until the connection fails
// or ctx ends. A quiet connection is pinged every Options.ListenCheck, and
// a ping unanswered for as long ends it, so that a connection that went
// silent without a word (half-open) is noticed and replaced.
func (s *Store) relay(ctx context.Context, conn *pgx.Conn, out chan<- store.Notification) error {
	for {
		waitCtx, cancel := s.opts.Clock.WithTimeout(ctx, s.opts.ListenCheck)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && waitCtx.Err() != nil:
			if err := s.ping(ctx, conn); err != nil {
				return err
			}
			continue
		case err != nil:
			return err
		}
		note, ok := s.decode(n.Channel, n.Payload)
		if !ok {
			continue
		}
		select {
		case out <- note:
		default: // the reader is behind; it polls anyway
		}
	}
}

// ping checks that conn answers within Options.ListenCheck.
func (s *Store) ping(ctx context.Context, conn *pgx.Conn) error {
	pingCtx, cancel := s.opts.Clock.WithTimeout(ctx, s.opts.ListenCheck)
	defer cancel()
	if err := conn.Ping(pingCtx); err != nil {
		return fmt.Errorf("listen connection silent for %v: %w", s.opts.ListenCheck, err)
	}
	return nil
}

func (s *Store) decode(channel, payload string) (store.Notification, bool) {
	switch channel {
	case s.chAvailable:
		return store.Notification{Channel: store.ChannelAvailable, Queue: payload}, true
	case s.chStepdown:
		return store.Notification{Channel: store.ChannelStepdown}, true
	case s.chCancel:
		id, ok := parseCancelPayload(payload)
		return store.Notification{Channel: store.ChannelCancel, Job: id}, ok
	}
	return store.Notification{}, false
}

// sleep waits d on the store's clock; false if ctx ended first.
func (s *Store) sleep(ctx context.Context, d time.Duration) bool {
	timer := s.opts.Clock.Timer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}
