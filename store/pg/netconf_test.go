package pg

import (
	"testing"
	"time"
)

// Open's connections get the connect timeout unless the URL sets its own,
// and a dialer with keepalives.
func TestApplyNetSetsTheConnectTimeoutAndKeepalives(t *testing.T) {
	for _, tc := range []struct {
		url  string
		opts Options
		want time.Duration
	}{
		{"postgres://u@h/db", Options{}, DefaultConnectTimeout},
		{"postgres://u@h/db", Options{ConnectTimeout: 3 * time.Second}, 3 * time.Second},
		{"postgres://u@h/db?connect_timeout=7", Options{ConnectTimeout: 3 * time.Second}, 7 * time.Second},
	} {
		cfg, err := ParseConfig(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		netSettings(&tc.opts)
		applyNet(cfg.ConnConfig, tc.opts)
		if got := cfg.ConnConfig.ConnectTimeout; got != tc.want {
			t.Errorf("%s with ConnectTimeout %v: connect timeout %v, want %v", tc.url, tc.opts.ConnectTimeout, got, tc.want)
		}
		if cfg.ConnConfig.DialFunc == nil {
			t.Errorf("%s: no dialer set", tc.url)
		}
	}
	var o Options
	netSettings(&o)
	if o.KeepAlive != DefaultKeepAlive || o.UserTimeout != DefaultUserTimeout || o.ListenCheck != DefaultListenCheck {
		t.Errorf("defaults: keepalive %v, user timeout %v, listen check %v; want %v, %v, %v",
			o.KeepAlive, o.UserTimeout, o.ListenCheck, DefaultKeepAlive, DefaultUserTimeout, DefaultListenCheck)
	}
}
