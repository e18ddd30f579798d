package main

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store/pg"
)

// The network flags reach the worker's configuration and the store's
// options, with the store's defaults when not given.
func TestNetFlagsReachTheConfigAndTheStore(t *testing.T) {
	parse := func(args ...string) runFlags {
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var f runFlags
		f.register(fs)
		if _, err := parseFlags(fs, args, fakeEnv(nil)); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return f
	}
	f := parse("-call-timeout", "3s", "-dial-timeout", "4s", "-tcp-keepalive", "6s", "-tcp-user-timeout", "9s", "-listen-check", "2s")
	cfg, err := f.config()
	if err != nil {
		t.Fatal(err)
	}
	var o pg.Options
	f.db.net.apply(&o)
	if cfg.CallTimeout != 3*time.Second || o.ConnectTimeout != 4*time.Second || o.KeepAlive != 6*time.Second || o.UserTimeout != 9*time.Second || o.ListenCheck != 2*time.Second {
		t.Errorf("call timeout %v, store options %+v", cfg.CallTimeout, o)
	}
	f = parse()
	o = pg.Options{}
	f.db.net.apply(&o)
	if cfg, _ := f.config(); cfg.CallTimeout != 0 || o.ConnectTimeout != pg.DefaultConnectTimeout || o.KeepAlive != pg.DefaultKeepAlive || o.UserTimeout != pg.DefaultUserTimeout || o.ListenCheck != pg.DefaultListenCheck {
		t.Errorf("defaults: call timeout %v (want 0: the engine's), store options %+v", cfg.CallTimeout, o)
	}
}
