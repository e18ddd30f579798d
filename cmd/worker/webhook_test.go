package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
)

// recordingServer answers every request with handler and counts them.
func recordingServer(t *testing.T, handler http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		handler(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, &hits
}

func TestWebhookDecisions(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		wantOK    bool
		permanent bool
	}{
		{"200 succeeds", 200, true, false},
		{"204 succeeds", 204, true, false},
		{"400 fails", 400, false, true},
		{"404 fails", 404, false, true},
		{"410 fails", 410, false, true},
		{"302 fails without following", 302, false, true},
		{"408 retries", 408, false, false},
		{"429 retries", 429, false, false},
		{"500 retries", 500, false, false},
		{"503 retries", 503, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts, hits := recordingServer(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.status == 302 {
					w.Header().Set("Location", "/elsewhere")
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, "answer body")
			})
			s := newWebhookSender(true, 5*time.Second)
			defer s.close()
			err := s.send(context.Background(), webhookPayload{URL: ts.URL + "/hook", Body: json.RawMessage(`{"a":1}`)})
			if got := hits.Load(); got != 1 {
				t.Fatalf("server got %d requests, want 1 (redirects must not be followed)", got)
			}
			if tc.wantOK {
				if err != nil {
					t.Fatalf("send = %v, want success", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("send succeeded, want an error for HTTP %d", tc.status)
			}
			if isPermanent(err) != tc.permanent {
				t.Fatalf("send = %v; permanent = %v, want %v", err, isPermanent(err), tc.permanent)
			}
			if !strings.Contains(err.Error(), "answer body") {
				t.Errorf("reason %q does not quote the answer", err)
			}
		})
	}
}

func TestWebhookSendsBodyAndHeaders(t *testing.T) {
	type seen struct {
		method, contentType, custom, body string
	}
	got := make(chan seen, 1)
	ts, _ := recordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.Header.Get("Content-Type"), r.Header.Get("X-Signature"), string(b)}
	})
	s := newWebhookSender(true, 5*time.Second)
	defer s.close()
	p := webhookPayload{URL: ts.URL, Body: json.RawMessage(`{"event": "paid", "n": [1, 2]}`), Headers: map[string]string{"X-Signature": "abc"}}
	if err := s.send(context.Background(), p); err != nil {
		t.Fatalf("send: %v", err)
	}
	want := seen{"POST", "application/json", "abc", `{"event": "paid", "n": [1, 2]}`}
	if g := <-got; g != want {
		t.Fatalf("server saw %+v, want %+v", g, want)
	}
}

func TestWebhookTimeoutRetries(t *testing.T) {
	release := make(chan struct{})
	ts, _ := recordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	s := newWebhookSender(true, 50*time.Millisecond)
	defer s.close()
	err := s.send(context.Background(), webhookPayload{URL: ts.URL})
	if err == nil || isPermanent(err) {
		t.Fatalf("send = %v, want a retryable timeout error", err)
	}
	if !strings.Contains(err.Error(), "no answer within") {
		t.Errorf("reason %q does not say the webhook timed out", err)
	}
}

func TestWebhookConnectionRefusedRetries(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close() // nothing listens there any more
	s := newWebhookSender(true, 5*time.Second)
	defer s.close()
	err := s.send(context.Background(), webhookPayload{URL: url})
	if err == nil || isPermanent(err) {
		t.Fatalf("send = %v, want a retryable network error", err)
	}
}

func TestWebhookRefusesLoopbackWithoutFlag(t *testing.T) {
	ts, hits := recordingServer(t, func(http.ResponseWriter, *http.Request) {})
	port := ts.URL[strings.LastIndex(ts.URL, ":"):]
	s := newWebhookSender(false, 5*time.Second)
	defer s.close()
	// "localhost" resolves to a loopback address: the check must apply to
	// the resolved address, not to the name in the URL.
	for _, url := range []string{ts.URL, "http://localhost" + port + "/x"} {
		err := s.send(context.Background(), webhookPayload{URL: url, Body: json.RawMessage(`1`)})
		var refused *refusedAddressError
		if !errors.As(err, &refused) || !isPermanent(err) {
			t.Fatalf("send to %s = %v, want a permanent refusal", url, err)
		}
		if !strings.Contains(err.Error(), "-webhook-allow-private") {
			t.Errorf("refusal %q does not name the flag that allows it", err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("server got %d requests, want none", n)
	}
}

func TestWebhookPayloadValidate(t *testing.T) {
	bad := []webhookPayload{
		{URL: ""},
		{URL: "ftp://example.com/x"},
		{URL: "http://"},
		{URL: "://nope"},
		{URL: "https://example.com", Headers: map[string]string{"Bad Name": "x"}},
		{URL: "https://example.com", Headers: map[string]string{"X-A": "a\r\nX-Injected: 1"}},
		{URL: "https://example.com", Headers: map[string]string{"X-A": "a\nb"}},
		{URL: "https://example.com", Headers: map[string]string{"X-A": "a\x00b"}},
	}
	for _, p := range bad {
		if err := p.validate(); err == nil {
			t.Errorf("validate(%+v) = nil, want an error", p)
		}
	}
	s := newWebhookSender(true, time.Second)
	defer s.close()
	if err := s.send(context.Background(), bad[1]); !isPermanent(err) {
		t.Errorf("send of an ftp URL = %v, want a permanent error", err)
	}
	if err := (webhookPayload{URL: "https://example.com/hook"}).validate(); err != nil {
		t.Errorf("validate of a good payload: %v", err)
	}
}

// TestWebhookHeaderWithNewlineFailsAtOnce: a header value holding CR or
// LF can never be sent, so the job fails without a retry, and the value
// (often a credential) is not quoted.
func TestWebhookHeaderWithNewlineFailsAtOnce(t *testing.T) {
	ts, hits := recordingServer(t, func(http.ResponseWriter, *http.Request) {})
	s := newWebhookSender(true, 5*time.Second)
	defer s.close()
	err := s.send(context.Background(), webhookPayload{URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer " + webhookSecret + "\r\nX-Evil: 1"}})
	if !isPermanent(err) || !strings.Contains(err.Error(), `"Authorization"`) {
		t.Fatalf("send = %v, want a permanent error naming the header", err)
	}
	if strings.Contains(err.Error(), webhookSecret) {
		t.Errorf("the error quotes the header's value: %v", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("server got %d requests, want none", n)
	}
}

const webhookSecret = "hunter2-Webhook-S3cret"

// TestWebhookErrorsRedactTheURL: whatever happens to a webhook, the
// reason names its URL without user info or query values.
func TestWebhookErrorsRedactTheURL(t *testing.T) {
	ts, _ := recordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gone" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	secretURL := func(base, path string) string {
		return strings.Replace(base, "://", "://user:"+webhookSecret+"@", 1) + path + "?token=" + webhookSecret + "&x=" + webhookSecret + "#" + webhookSecret
	}
	s := newWebhookSender(true, 5*time.Second)
	defer s.close()
	strict := newWebhookSender(false, 5*time.Second)
	defer strict.close()
	for _, c := range []struct {
		sender *webhookSender
		url    string
		want   string
	}{
		{s, secretURL(ts.URL, "/gone"), "HTTP 404"},
		{s, secretURL(ts.URL, "/busy"), "HTTP 503"},
		{s, secretURL(closed.URL, "/x"), "refused"},
		{strict, secretURL(ts.URL, "/x"), "loopback"},
		{s, "ftp://user:" + webhookSecret + "@example.com/?token=" + webhookSecret, "scheme must be http"},
		{s, "http://user:" + webhookSecret + "@example.com:notaport/x?token=" + webhookSecret, "does not parse"},
		{s, "http://user:pass/" + webhookSecret + "@example.com/x", "does not parse"},
	} {
		err := c.sender.send(context.Background(), webhookPayload{URL: c.url})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("send to %s = %v, want an error saying %q", c.url, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), webhookSecret) {
			t.Errorf("send to %s: the error shows the secret: %v", c.url, err)
		}
	}
}

// A server's Retry-After is a number of seconds it chooses: one whose
// product with a second overflows a time.Duration (9,300,000,000 s) used
// to wrap to a negative delay, so every retry ran at once, without any
// backoff. Every such answer waits the longest Retry-After the worker
// honours; one that is not a number of seconds gets the backoff.
func TestWebhookHugeRetryAfterWaitsTheCap(t *testing.T) {
	for _, c := range []struct {
		header string
		want   time.Duration
	}{
		{"9300000000", maxRetryAfter},
		{"99999999999999999999999", maxRetryAfter},
		{"9223372036854775807", maxRetryAfter},
		{"120", 2 * time.Minute},
		{"-5", clockrng.DefaultBackoff().Nominal(3)},
		{"Wed, 21 Oct 2015 07:28:00 GMT", clockrng.DefaultBackoff().Nominal(3)},
	} {
		ts, _ := recordingServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", c.header)
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		s := newWebhookSender(true, 5*time.Second)
		err := s.send(context.Background(), webhookPayload{URL: ts.URL + "/hook", Body: json.RawMessage(`{}`)})
		s.close()
		if err == nil || isPermanent(err) {
			t.Fatalf("Retry-After %s: send = %v, want a retried error", c.header, err)
		}
		if got := webhookDelay(clockrng.DefaultBackoff(), 3, err, clockrng.NewRand(1)); got != c.want {
			t.Errorf("Retry-After %s: retry delay %v, want %v", c.header, got, c.want)
		}
	}
}
