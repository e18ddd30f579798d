package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"
)

// webhookPayload is the payload of a job on the webhook queue: POST Body
// (any JSON; nothing when absent) to URL with the extra Headers.
type webhookPayload struct {
	URL     string            `json:"url"`
	Body    json.RawMessage   `json:"body,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// validate rejects a payload no attempt could deliver, so that enqueue can
// refuse it and the handler can fail it without a retry. Its errors name
// the URL only as redactWebhookURL does and never quote a header's value.
func (p webhookPayload) validate() error {
	u, err := url.Parse(p.URL)
	if err != nil {
		// url.Parse's error quotes the URL, and a part of it when the
		// user info is malformed: it is not passed on.
		return errors.New("webhook url does not parse as a URL (not shown: it may hold credentials)")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("webhook url %s: scheme must be http or https", redactWebhookURL(p.URL))
	}
	if u.Host == "" {
		return fmt.Errorf("webhook url %s has no host", redactWebhookURL(p.URL))
	}
	for _, name := range slices.Sorted(maps.Keys(p.Headers)) {
		if !validHeaderName(name) {
			return fmt.Errorf("webhook header name %q is not valid", name)
		}
		if !validHeaderValue(p.Headers[name]) {
			return fmt.Errorf("webhook header %q: its value holds a control character such as CR or LF", name)
		}
	}
	return nil
}

// validHeaderName reports whether name is an HTTP token (RFC 9110 5.1).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether v may be sent as a header value: no
// control character but tab (RFC 9110 5.5), so no CR or LF that would
// end the header early.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// permanentError marks a webhook failure that no retry can fix: the job
// fails at once. Every other error from send asks for a retry.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(format string, args ...any) error {
	return &permanentError{err: fmt.Errorf(format, args...)}
}

// isPermanent reports whether err says a retry cannot help.
func isPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// refusedAddressError is the dialer's refusal of an address the webhook
// must not reach.
type refusedAddressError struct {
	addr netip.Addr
	kind string
}

func (e *refusedAddressError) Error() string {
	return fmt.Sprintf("refusing to connect to %s address %s (pass -webhook-allow-private to allow it)", e.kind, e.addr)
}

// webhookSender delivers webhook payloads.
type webhookSender struct {
	client  *http.Client
	timeout time.Duration
}

// newWebhookSender returns a sender whose requests time out after timeout.
// Unless allowPrivate is set, it refuses loopback, private, link-local,
// unspecified and similar addresses. The check runs on the address actually
// dialled, after DNS resolution, so a name that resolves (or re-resolves) to
// such an address cannot slip through. Proxies from the environment are
// ignored for the same reason: the check must see the real destination.
func newWebhookSender(allowPrivate bool, timeout time.Duration) *webhookSender {
	dialer := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		dialer.Control = refuseNonPublic
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &webhookSender{
		client: &http.Client{
			Transport: transport,
			// A redirect is reported as it is; following it would send the
			// body somewhere the enqueuer did not name.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		timeout: timeout,
	}
}

// close releases idle connections.
func (s *webhookSender) close() { s.client.CloseIdleConnections() }

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

	// IPv6 prefixes that carry an IPv4 address to which the traffic goes.
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48")
	nat64Local96   = netip.MustParsePrefix("64:ff9b:1::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	teredo         = netip.MustParsePrefix("2001::/32")
	ipv4Compatible = netip.MustParsePrefix("::/96")
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
	case ipv4Compatible.Contains(a) && !a.IsUnspecified() && !a.IsLoopback():
		return netip.AddrFrom4([4]byte(b[12:16])), "IPv4-compatible"
	}
	return netip.Addr{}, ""
}

// maxReasonBytes is how much of an error response is kept in the reason.
const maxReasonBytes = 256

// send POSTs the payload. It returns nil for a 2xx answer; a permanentError
// for a 4xx answer (other than 408 and 429, which ask to come back later),
// a redirect, an address refused by policy or a payload that cannot be
// sent; and a plain error, to be retried, for a 5xx answer, a timeout or a
// network failure.
func (s *webhookSender) send(ctx context.Context, p webhookPayload) error {
	if err := p.validate(); err != nil {
		return &permanentError{err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	target := redactWebhookURL(p.URL)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, bytes.NewReader(p.Body))
	if err != nil {
		return permanent("webhook request to %s: %v", target, withoutURL(err))
	}
	req.Header.Set("User-Agent", "tickwork-webhook/1")
	if len(p.Body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	for name, value := range p.Headers {
		req.Header.Set(name, value)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		var refused *refusedAddressError
		if errors.As(err, &refused) {
			return &permanentError{err: fmt.Errorf("webhook to %s: %w", target, refused)}
		}
		if ctx.Err() == context.DeadlineExceeded {
			return fmt.Errorf("webhook to %s: no answer within %v", target, s.timeout)
		}
		return fmt.Errorf("webhook to %s: %w", target, withoutURL(err))
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, maxReasonBytes))
	// Drain a little more so the connection can be reused, but not forever.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return classifyStatus(target, resp.StatusCode, snippet)
}

// withoutURL drops the *url.Error layer net/http wraps around its errors:
// its text holds the request's URL with the query, which may be a secret.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// classifyStatus turns an HTTP answer into the job's outcome; target is
// the URL as it may be shown.
func classifyStatus(target string, code int, body []byte) error {
	if code >= 200 && code <= 299 {
		return nil
	}
	err := fmt.Errorf("webhook to %s: HTTP %d %s%s", target, code, http.StatusText(code), quoteBody(body))
	switch {
	case code >= 500, code == http.StatusRequestTimeout, code == http.StatusTooManyRequests:
		return err
	case code >= 300 && code <= 399:
		return &permanentError{err: fmt.Errorf("%w (redirects are not followed)", err)}
	}
	return &permanentError{err: err}
}

func quoteBody(b []byte) string {
	s := strings.TrimSpace(string(bytes.ToValidUTF8(b, []byte("?"))))
	if s == "" {
		return ""
	}
	return fmt.Sprintf(": %q", s)
}
