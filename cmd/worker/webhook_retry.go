package main

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/worker"
)

// maxRetryAfter caps the wait a webhook's Retry-After may ask for.
const maxRetryAfter = day

// retryAfterError is a webhook failure whose answer said when to come
// back: a Retry-After header in seconds (RFC 9110 10.2.3; the HTTP-date
// form would need this machine's clock to agree with the server's, so it
// is ignored and the backoff applies).
type retryAfterError struct {
	err   error
	after time.Duration
}

func (e *retryAfterError) Error() string { return e.err.Error() }
func (e *retryAfterError) Unwrap() error { return e.err }

// withRetryAfter wraps a retried err with the wait header asks for, if it
// asks. The server's number of seconds is multiplied without overflow (a
// number too large to parse is as long as can be): either way the wait is
// maxRetryAfter at most.
func withRetryAfter(err error, header http.Header) error {
	secs, perr := strconv.ParseInt(strings.TrimSpace(header.Get("Retry-After")), 10, 64)
	if errors.Is(perr, strconv.ErrRange) && secs > 0 {
		perr = nil
	}
	if err == nil || isPermanent(err) || perr != nil || secs < 0 {
		return err
	}
	return &retryAfterError{err: err, after: min(clockrng.MulDuration(time.Second, secs), maxRetryAfter)}
}

// webhookRetryDelay is the webhook handler's RetryDelay (webhookDelay).
func webhookRetryDelay(backoff clockrng.Backoff) worker.HandlerOption {
	return worker.WithRetryDelay(func(attempt int, err error, r *clockrng.Rand) time.Duration {
		return webhookDelay(backoff, attempt, err, r)
	})
}

// webhookDelay is the wait before the retry of attempt, which failed with
// err: the wait the answer's Retry-After asked for when it gave one, else
// the worker's backoff (its jitter drawn from r, the worker's source).
func webhookDelay(backoff clockrng.Backoff, attempt int, err error, r *clockrng.Rand) time.Duration {
	var ra *retryAfterError
	if errors.As(err, &ra) {
		return ra.after
	}
	return backoff.Delay(attempt, r)
}
