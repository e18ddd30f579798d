package pg

import (
	"cmp"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
)

// The defaults of the network settings of Options.
const (
	// DefaultConnectTimeout bounds one connection attempt when neither
	// Options.ConnectTimeout nor the URL's connect_timeout says.
	DefaultConnectTimeout = 10 * time.Second
	// DefaultKeepAlive is the idle time before the first TCP keepalive
	// probe, and three times the time between probes: an idle connection
	// whose peer vanished is dropped about twice this after its last
	// answer.
	DefaultKeepAlive = 15 * time.Second
	// DefaultUserTimeout is how long data sent on a connection may stay
	// unacknowledged before the kernel drops the connection
	// (TCP_USER_TIMEOUT, Linux only): twice DefaultKeepAlive, so that a
	// connection with a write in flight goes about when an idle one would.
	DefaultUserTimeout = 30 * time.Second
	// DefaultListenCheck is how long the listener waits for a notification
	// before it pings its connection, and how long that ping may take.
	DefaultListenCheck = 30 * time.Second
)

// keepAliveProbes is how many unanswered probes drop a connection.
const keepAliveProbes = 3

// netSettings fills in the network settings of opts.
func netSettings(opts *Options) {
	opts.KeepAlive = cmp.Or(opts.KeepAlive, DefaultKeepAlive)
	opts.UserTimeout = cmp.Or(opts.UserTimeout, DefaultUserTimeout)
	opts.ListenCheck = cmp.Or(opts.ListenCheck, DefaultListenCheck)
}

// applyNet sets the connect timeout (unless the URL's connect_timeout
// did), the TCP keepalives and the TCP user timeout of every connection
// cfg makes, the listener's included: Listen copies the configuration.
func applyNet(cfg *pgx.ConnConfig, opts Options) {
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = cmp.Or(opts.ConnectTimeout, DefaultConnectTimeout)
	}
	d := &net.Dialer{KeepAliveConfig: net.KeepAliveConfig{
		Enable:   true,
		Idle:     opts.KeepAlive,
		Interval: max(opts.KeepAlive/keepAliveProbes, time.Second),
		Count:    keepAliveProbes,
	}, Control: userTimeout(opts.UserTimeout)}
	cfg.DialFunc = d.DialContext
}
