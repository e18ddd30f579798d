package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/tickwork/tickwork/store/pg"
)

// proxies are the Toxiproxy proxies of a run with network faults, served
// in this process on loopback: for each worker, one in front of
// PostgreSQL for its pool and one for its LISTEN connection, so that a
// fault hits one worker, or its listener alone, and never the checker.
type proxies struct {
	server   *toxiproxy.ApiServer
	upstream string                      // PostgreSQL's host:port
	pool     map[string]*toxiproxy.Proxy // by worker name
	listen   map[string]*toxiproxy.Proxy
	toxics   int // names the toxics
}

// newProxies starts a pool and a listen proxy per worker name in front of
// the database dbURL names, which must be reached over TCP.
func newProxies(dbURL string, names []string) (*proxies, error) {
	cfg, err := pg.ParseConfig(dbURL)
	if err != nil {
		return nil, err
	}
	host := cfg.ConnConfig.Host
	if strings.HasPrefix(host, "/") {
		return nil, fmt.Errorf("-net-faults: the database URL names a Unix socket (%s); Toxiproxy needs a TCP host and port", host)
	}
	// The toxics log through zerolog's global logger; the run's output is
	// the report.
	zerolog.SetGlobalLevel(zerolog.Disabled)
	p := &proxies{
		server:   toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop()),
		upstream: net.JoinHostPort(host, strconv.Itoa(int(cfg.ConnConfig.Port))),
		pool:     map[string]*toxiproxy.Proxy{},
		listen:   map[string]*toxiproxy.Proxy{},
	}
	for _, name := range names {
		if p.pool[name], err = p.start(name); err != nil {
			p.close()
			return nil, err
		}
		if p.listen[name], err = p.start(name + "-listen"); err != nil {
			p.close()
			return nil, err
		}
	}
	return p, nil
}

func (p *proxies) start(name string) (*toxiproxy.Proxy, error) {
	proxy := toxiproxy.NewProxy(p.server, name, "127.0.0.1:0", p.upstream)
	if err := p.server.Collection.Add(proxy, true); err != nil {
		return nil, fmt.Errorf("start the Toxiproxy proxy %s to %s: %w", name, p.upstream, err)
	}
	return proxy, nil
}

// close stops every proxy and with them their connections.
func (p *proxies) close() { _ = p.server.Collection.Clear() }

// via returns dbURL pointed at proxy: the host and port of the URL give
// way to the proxy's, everything else is kept.
func via(dbURL string, proxy *toxiproxy.Proxy) string {
	host, port, _ := net.SplitHostPort(proxy.Listen)
	return pg.WithParam(pg.WithParam(dbURL, "host", host), "port", port)
}

// toxic is one toxic added to a proxy, to be removed by name.
type toxic struct {
	proxy *toxiproxy.Proxy
	name  string
}

// add puts a toxic of kind typ with attrs on proxy, in direction stream
// ("upstream": towards PostgreSQL, "downstream": back).
func (p *proxies) add(proxy *toxiproxy.Proxy, typ, stream string, attrs map[string]int64) (toxic, error) {
	p.toxics++
	name := fmt.Sprintf("%s-%s-%d", typ, stream, p.toxics)
	body, err := json.Marshal(map[string]any{"name": name, "type": typ, "stream": stream, "toxicity": 1.0, "attributes": attrs})
	if err != nil {
		return toxic{}, err
	}
	if _, err := proxy.Toxics.AddToxicJson(strings.NewReader(string(body))); err != nil {
		return toxic{}, fmt.Errorf("add toxic %s to proxy %s: %w", name, proxy.Name, err)
	}
	return toxic{proxy: proxy, name: name}, nil
}

// remove takes toxics off their proxies; one already gone is no error.
func (p *proxies) remove(ctx context.Context, ts []toxic) error {
	var errs []error
	for _, t := range ts {
		if err := t.proxy.Toxics.RemoveToxic(ctx, t.name); err != nil && !errors.Is(err, toxiproxy.ErrToxicNotFound) {
			errs = append(errs, fmt.Errorf("remove toxic %s from proxy %s: %w", t.name, t.proxy.Name, err))
		}
	}
	return errors.Join(errs...)
}
