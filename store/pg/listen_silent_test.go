package pg_test

import (
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/tickwork/tickwork/internal/syncbuf"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestListenReplacesASilentConnection puts the LISTEN connection behind a
// Toxiproxy proxy and blackholes it (the timeout toxic with timeout 0:
// bytes vanish, nothing closes). The listener must notice within about
// two ListenCheck periods, say so, and deliver notifications again once
// the network is back.
func TestListenReplacesASilentConnection(t *testing.T) {
	url := pgtest.URL(t)
	cfg, err := pg.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	zerolog.SetGlobalLevel(zerolog.Disabled)
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	upstream := net.JoinHostPort(cfg.ConnConfig.Host, strconv.Itoa(int(cfg.ConnConfig.Port)))
	proxy := toxiproxy.NewProxy(server, "listen", "127.0.0.1:0", upstream)
	if err := server.Collection.Add(proxy, true); err != nil {
		t.Fatal(err)
	}
	// A cleanup registered before the store's runs after it: the store
	// closes its connections first, so the proxy's links end as links do
	// (stopped under open connections, one of its pipes stayed blocked).
	t.Cleanup(func() { _ = server.Collection.Clear() })
	host, port, _ := net.SplitHostPort(proxy.Listen)

	logs := &syncbuf.Buffer{}
	const check = 200 * time.Millisecond
	s := pgtest.OpenWith(t, pg.Options{
		ListenURL:      pg.WithParam(pg.WithParam(url, "host", host), "port", port),
		ListenCheck:    check,
		ConnectTimeout: 300 * time.Millisecond,
		Logger:         slog.New(slog.NewTextHandler(logs, nil)),
	})
	ch, err := s.Listen(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the listener's LISTEN", func() bool { return listenDone(t, s) })

	for _, stream := range []string{"upstream", "downstream"} {
		body := `{"name": "silence-` + stream + `", "type": "timeout", "stream": "` + stream + `", "attributes": {"timeout": 0}}`
		if _, err := proxy.Toxics.AddToxicJson(strings.NewReader(body)); err != nil {
			t.Fatal(err)
		}
	}
	silenced := time.Now()
	waitFor(t, "the listener to notice the silence", func() bool {
		return strings.Contains(logs.String(), "listen connection silent for "+check.String())
	})
	// About two checks; the bound is loose because the machine may be
	// loaded, and still far below the minutes TCP keepalives would take.
	if took := time.Since(silenced); took > 25*check {
		t.Errorf("the listener noticed the silence after %v, want about %v", took, 2*check)
	}
	for _, stream := range []string{"upstream", "downstream"} {
		if err := proxy.Toxics.RemoveToxic(t.Context(), "silence-"+stream); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the listener to reconnect", func() bool {
		return strings.Contains(logs.String(), "listen connection restored")
	})
	insert(t, s, store.NewJob{ID: newULID(t), Queue: "after", Payload: []byte(`1`)})
	if n := next(t, ch); n != (store.Notification{Channel: store.ChannelAvailable, Queue: "after"}) {
		t.Fatalf("after the silence: %+v, want the new job's notification", n)
	}
}
