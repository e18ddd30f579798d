package console

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// Failed logins are slowed per client address: the first loginBurst
// attempts cost nothing; after that each attempt must wait, twice as long
// as the one before, up to loginMaxDelay, and one made sooner is refused
// without looking at the token. A login that succeeds clears its address,
// and an address quiet for loginForget starts afresh. So a guesser gets
// about one try a minute, and the operator, from another address, is
// never slowed by it; from the same address (behind one proxy), at most a
// minute at a time.
const (
	loginBurst     = 5
	loginBaseDelay = time.Second
	loginMaxDelay  = time.Minute
	loginForget    = 15 * time.Minute
	// maxClients bounds the table; beyond it the address quiet longest is
	// forgotten.
	maxClients = 4096
)

type attempts struct {
	n     int       // attempts since the last success
	last  time.Time // the latest attempt
	until time.Time // no attempt before this
}

type throttle struct {
	now func() time.Time

	mu       sync.Mutex
	byClient map[string]*attempts
}

func newThrottle(now func() time.Time) *throttle {
	return &throttle{now: now, byClient: map[string]*attempts{}}
}

// attempt records a login attempt by client and returns 0 if it may go
// ahead (it counts as a failure until succeeded says otherwise, so that
// attempts made at once cannot all slip through), or how long the client
// must still wait; n is the number of attempts counted so far.
func (t *throttle) attempt(client string) (wait time.Duration, n int) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.byClient[client]
	if a != nil && now.Sub(a.last) >= loginForget {
		a = nil
	}
	if a == nil {
		t.evict(now)
		a = &attempts{}
		t.byClient[client] = a
	}
	if now.Before(a.until) {
		return a.until.Sub(now), a.n
	}
	a.n++
	a.last = now
	if a.n >= loginBurst {
		a.until = now.Add(delayAfter(a.n))
	}
	return 0, a.n
}

// delayAfter is the wait after the n-th attempt in a row, n ≥ loginBurst.
func delayAfter(n int) time.Duration {
	d := loginBaseDelay
	for i := loginBurst; i < n && d < loginMaxDelay; i++ {
		d *= 2
	}
	return min(d, loginMaxDelay)
}

// succeeded clears client's record.
func (t *throttle) succeeded(client string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byClient, client)
}

// evict makes room for one more client. The caller holds mu.
func (t *throttle) evict(now time.Time) {
	if len(t.byClient) < maxClients {
		return
	}
	var quiet string
	var at time.Time
	for c, a := range t.byClient {
		if now.Sub(a.last) >= loginForget {
			delete(t.byClient, c)
			continue
		}
		if at.IsZero() || a.last.Before(at) || (a.last.Equal(at) && c < quiet) {
			quiet, at = c, a.last
		}
	}
	if len(t.byClient) >= maxClients {
		delete(t.byClient, quiet)
	}
}

// clientOf names the client of r for the throttle: its IP address from
// the connection (a header such as X-Forwarded-For is anybody's to write),
// an IPv6 address by its /64, which one machine usually holds whole.
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		p, _ := ip.Prefix(64) // a valid IPv6 address always has a /64
		return p.String()
	}
	return ip.String()
}
