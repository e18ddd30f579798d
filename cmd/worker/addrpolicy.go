package main

import (
	"fmt"
	"net/netip"
	"syscall"
)

// The webhook's address policy: which addresses a webhook may not reach
// unless -webhook-allow-private is set (server-side request forgery).

// refusedAddressError is the dialer's refusal of an address the webhook
// must not reach.
type refusedAddressError struct {
	addr netip.Addr
	kind string
}

func (e *refusedAddressError) Error() string {
	return fmt.Sprintf("refusing to connect to %s address %s (pass -webhook-allow-private to allow it)", e.kind, e.addr)
}

// refuseNonPublic is a net.Dialer Control function: it runs after name
// resolution, on the very address being connected to.
func refuseNonPublic(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refusing to connect to %q: not an IP address and port: %w", address, err)
	}
	if kind := nonPublicKind(ap.Addr()); kind != "" {
		return &refusedAddressError{addr: ap.Addr(), kind: kind}
	}
	return nil
}

var (
	sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT
	thisNetwork        = netip.MustParsePrefix("0.0.0.0/8")
	benchmarking       = netip.MustParsePrefix("198.18.0.0/15")
	reservedIPv4       = netip.MustParsePrefix("240.0.0.0/4") // with the broadcast address
	siteLocal          = netip.MustParsePrefix("fec0::/10")
	ietfProtocol       = netip.MustParsePrefix("192.0.0.0/24") // special-purpose (DS-Lite, NAT64 discovery, ...)
	documentation      = []netip.Prefix{
		netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.51.100.0/24"),
		netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8::/32"),
	}
	discardOnly = netip.MustParsePrefix("100::/64")

	// IPv6 prefixes that carry an IPv4 address to which the traffic goes.
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48")
	nat64Local96   = netip.MustParsePrefix("64:ff9b:1::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	teredo         = netip.MustParsePrefix("2001::/32")
	ipv4Compatible = netip.MustParsePrefix("::/96")
	// IPv4-translated (SIIT), ::ffff:0:a.b.c.d: not the IPv4-mapped
	// ::ffff:a.b.c.d, which Unmap already reads.
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96")
)

// nonPublicKind names the kind of a non-public address, or returns "" for
// an address the webhook may reach. An IPv6 address that carries an IPv4
// address (mapped, IPv4-compatible, NAT64, 6to4, Teredo) is judged by the
// IPv4 address, where the packets end up.
func nonPublicKind(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	if v4, via := embeddedIPv4(a); via != "" {
		if kind := nonPublicKind(v4); kind != "" {
			return fmt.Sprintf("%s (%s %s)", kind, via, v4)
		}
		return ""
	}
	switch {
	case a.IsUnspecified() || thisNetwork.Contains(a):
		return "unspecified"
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate() || sharedAddressSpace.Contains(a):
		return "private"
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsMulticast() || a.IsInterfaceLocalMulticast():
		return "multicast"
	case siteLocal.Contains(a):
		return "site-local"
	case nat64Local.Contains(a):
		// Local-use NAT64 with a prefix other than /96: where the IPv4
		// address sits is the site's choice.
		return "local-use NAT64"
	case benchmarking.Contains(a):
		return "benchmarking"
	case ietfProtocol.Contains(a):
		return "IETF protocol assignment"
	case documentation[0].Contains(a), documentation[1].Contains(a), documentation[2].Contains(a), documentation[3].Contains(a):
		return "documentation"
	case discardOnly.Contains(a):
		return "discard-only"
	case reservedIPv4.Contains(a):
		return "reserved"
	}
	return ""
}

// embeddedIPv4 returns the IPv4 address an IPv6 address a carries and the
// mechanism (via) that carries it, or via "" when it carries none.
func embeddedIPv4(a netip.Addr) (v4 netip.Addr, via string) {
	if !a.Is6() {
		return netip.Addr{}, ""
	}
	b := a.As16()
	switch {
	case nat64.Contains(a), nat64Local96.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), "NAT64 of"
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), "6to4 of"
	case teredo.Contains(a):
		// The client's address, obfuscated by inverting its bits.
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), "Teredo of"
	case ipv4Translated.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), "IPv4-translated"
	case ipv4Compatible.Contains(a) && !a.IsUnspecified() && !a.IsLoopback():
		return netip.AddrFrom4([4]byte(b[12:16])), "IPv4-compatible"
	}
	return netip.Addr{}, ""
}
