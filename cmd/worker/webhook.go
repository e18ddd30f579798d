package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
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
// refuse it and the handler can fail it without a retry.
func (p webhookPayload) validate() error {
	u, err := url.Parse(p.URL)
	if err != nil {
		return fmt.Errorf("webhook url %q does not parse: %v", p.URL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("webhook url %q: scheme must be http or https", p.URL)
	}
	if u.Host == "" {
		return fmt.Errorf("webhook url %q has no host", p.URL)
	}
	for name := range p.Headers {
		if name == "" || strings.ContainsAny(name, " :\r\n") {
			return fmt.Errorf("webhook header name %q is not valid", name)
		}
	}
	return nil
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
)

// nonPublicKind names the kind of a non-public address, or returns "" for
// an address the webhook may reach.
func nonPublicKind(a netip.Addr) string {
	a = a.Unmap().WithZone("")
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
	}
	return ""
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
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, bytes.NewReader(p.Body))
	if err != nil {
		return permanent("webhook request to %s: %v", p.URL, err)
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
			return &permanentError{err: fmt.Errorf("webhook to %s: %w", p.URL, refused)}
		}
		if ctx.Err() == context.DeadlineExceeded {
			return fmt.Errorf("webhook to %s: no answer within %v", p.URL, s.timeout)
		}
		return fmt.Errorf("webhook to %s: %w", p.URL, err)
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, maxReasonBytes))
	// Drain a little more so the connection can be reused, but not forever.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return classifyStatus(p.URL, resp.StatusCode, snippet)
}

// classifyStatus turns an HTTP answer into the job's outcome.
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
