package main

import (
	"flag"
	"time"

	"github.com/tickwork/tickwork/store/pg"
)

// netFlags bound how long the binary waits on the network: one connection
// attempt, an idle connection whose peer vanished, a write nobody
// acknowledges, and a quiet listener
// (docs/OPERATIONS.md).
type netFlags struct {
	dialTimeout time.Duration
	keepAlive   time.Duration
	userTimeout time.Duration
	listenCheck time.Duration
}

func (n *netFlags) register(fs *flag.FlagSet) {
	durationVar(fs, &n.dialTimeout, "dial-timeout", pg.DefaultConnectTimeout, 100*time.Millisecond, maxTimeout, "how long one connection attempt to the database may take (a connect_timeout in the URL wins)")
	durationVar(fs, &n.keepAlive, "tcp-keepalive", pg.DefaultKeepAlive, time.Second, maxTimeout, "idle time before the first TCP keepalive probe of a database connection; probes follow every third of it and three unanswered drop the connection")
	durationVar(fs, &n.userTimeout, "tcp-user-timeout", pg.DefaultUserTimeout, time.Second, maxTimeout, "how long data sent on a database connection may stay unacknowledged before the connection is dropped (TCP_USER_TIMEOUT; Linux only)")
	durationVar(fs, &n.listenCheck, "listen-check", pg.DefaultListenCheck, 100*time.Millisecond, maxTimeout, "how long the LISTEN connection may stay quiet before it is pinged, and how long the ping may take before it is replaced")
}

// apply sets the store options the flags stand for.
func (n *netFlags) apply(o *pg.Options) {
	o.ConnectTimeout, o.KeepAlive, o.ListenCheck = n.dialTimeout, n.keepAlive, n.listenCheck
	o.UserTimeout = n.userTimeout
}
