package main

import (
	"testing"

	toxiproxy "github.com/Shopify/toxiproxy/v2"

	"github.com/tickwork/tickwork/store/pg"
)

// via points a URL at a proxy: pgx reads the query's host and port over
// the authority's.
func TestViaPointsTheURLAtTheProxy(t *testing.T) {
	proxy := &toxiproxy.Proxy{Listen: "127.0.0.1:40123"}
	for _, url := range []string{
		"postgres://postgres@10.0.0.9:5432/test?sslmode=disable",
		"host=10.0.0.9 port=5432 user=postgres dbname=test sslmode=disable",
	} {
		cfg, err := pg.ParseConfig(via(url, proxy))
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		if c := cfg.ConnConfig; c.Host != "127.0.0.1" || c.Port != 40123 || c.Database != "test" {
			t.Errorf("%s through the proxy: host %s port %d database %s", url, c.Host, c.Port, c.Database)
		}
	}
}
