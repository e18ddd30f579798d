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
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/tickwork/tickwork/internal/redact"
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
// the URL only as redact.URL does and never quote a header's value.
func (p webhookPayload) validate() error {
	u, err := url.Parse(p.URL)
	if err != nil {
		// url.Parse's error quotes the URL, and a part of it when the
		// user info is malformed: it is not passed on.
		return errors.New("webhook url does not parse as a URL (not shown: it may hold credentials)")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("webhook url %s: scheme must be http or https", redact.URL(p.URL))
	}
	if u.Host == "" {
		return fmt.Errorf("webhook url %s has no host", redact.URL(p.URL))
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
	target := redact.URL(p.URL)
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
	return withRetryAfter(classifyStatus(target, resp.StatusCode, snippet), resp.Header)
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
