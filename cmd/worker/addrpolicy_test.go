package main

import (
	"net/netip"
	"testing"
)

func TestNonPublicKind(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1":        "loopback",
		"127.9.9.9":        "loopback",
		"::1":              "loopback",
		"::ffff:127.0.0.1": "loopback",
		"10.1.2.3":         "private",
		"172.16.0.1":       "private",
		"192.168.1.1":      "private",
		"fd00::1":          "private",
		"100.64.0.1":       "private",
		"169.254.169.254":  "link-local",
		"fe80::1%eth0":     "link-local",
		"0.0.0.0":          "unspecified",
		"0.1.2.3":          "unspecified",
		"::":               "unspecified",
		"224.0.0.1":        "link-local",
		"239.1.1.1":        "multicast",
		"8.8.8.8":          "",
		"2001:4860::8888":  "",
		"172.32.0.1":       "",
		// Reserved IPv4 ranges.
		"198.18.0.1":      "benchmarking",
		"198.19.255.255":  "benchmarking",
		"240.0.0.1":       "reserved",
		"255.255.255.255": "reserved",
		"fec0::1":         "site-local",
		"192.0.0.170":     "IETF protocol assignment",
		"192.0.0.8":       "IETF protocol assignment",
		"192.0.2.1":       "documentation",
		"203.0.113.9":     "documentation",
		"2001:db8::1":     "documentation",
		"100::1":          "discard-only",
		"192.0.1.1":       "",
		// IPv4-translated (::ffff:0:a.b.c.d), unlike IPv4-mapped.
		"::ffff:0:7f00:1":  "loopback (IPv4-translated 127.0.0.1)",
		"::ffff:0:a00:1":   "private (IPv4-translated 10.0.0.1)",
		"::ffff:0:808:808": "",
		// IPv6 addresses that carry an IPv4 address are judged by it.
		"64:ff9b::7f00:1":                      "loopback (NAT64 of 127.0.0.1)",
		"64:ff9b::a9fe:a9fe":                   "link-local (NAT64 of 169.254.169.254)",
		"64:ff9b::808:808":                     "",
		"64:ff9b:1::a00:1":                     "private (NAT64 of 10.0.0.1)",
		"64:ff9b:1:2::808":                     "local-use NAT64",
		"2002:7f00:1::1":                       "loopback (6to4 of 127.0.0.1)",
		"2002:a00:1::":                         "private (6to4 of 10.0.0.1)",
		"2002:808:808::1":                      "",
		"::7f00:1":                             "loopback (IPv4-compatible 127.0.0.1)",
		"::a9fe:a9fe":                          "link-local (IPv4-compatible 169.254.169.254)",
		"::ffff:10.0.0.1":                      "private",
		"2001:0:4136:e378:8000:63bf:80ff:fffe": "loopback (Teredo of 127.0.0.1)",
		"2001:0:4136:e378:8000:63bf:f7f7:f7f7": "",
	}
	for addr, want := range cases {
		if got := nonPublicKind(netip.MustParseAddr(addr)); got != want {
			t.Errorf("nonPublicKind(%s) = %q, want %q", addr, got, want)
		}
	}
}
