package main

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// answer is how the webhook server replies to one delivery.
type answer int

const (
	answerOK      answer = iota // 200: the job completes
	answerError                 // 500: retried
	answerRefused               // 400: the job fails for good
	answerSlow                  // 200 after a delay that may outlast the worker's webhook timeout
	answerKinds
)

var answerNames = [answerKinds]string{"200", "500", "400", "slow"}

// hookServer is the target of the webhook jobs, on 127.0.0.1. Its answer to
// the n-th delivery of a job's token depends only on the seed, the token
// and n, so the attempts of one job meet the same answers in every run.
type hookServer struct {
	seed    uint64
	maxSlow time.Duration
	srv     *http.Server
	ln      net.Listener

	mu     sync.Mutex
	seen   map[string]int // deliveries per token
	counts [answerKinds]int
}

// startHookServer listens on a free loopback port. Slow answers take up to
// maxSlow.
func startHookServer(seed uint64, maxSlow time.Duration) (*hookServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("webhook server: %w", err)
	}
	h := &hookServer{seed: seed, maxSlow: maxSlow, ln: ln, seen: map[string]int{}}
	h.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = h.srv.Serve(ln) }()
	return h, nil
}

// url is where the job with token delivers.
func (h *hookServer) url(token string) string {
	return "http://" + h.ln.Addr().String() + "/hook/" + token
}

func (h *hookServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	token := strings.TrimPrefix(r.URL.Path, "/hook/")
	h.mu.Lock()
	n := h.seen[token]
	h.seen[token] = n + 1
	a, delay := h.decide(token, n)
	h.counts[a]++
	h.mu.Unlock()
	switch a {
	case answerError:
		w.WriteHeader(http.StatusInternalServerError)
	case answerRefused:
		w.WriteHeader(http.StatusBadRequest)
	case answerSlow:
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
}

// decide draws the answer to delivery n of token: 65% 200, 17% 500, 5% 400,
// 13% slow; but one token in 25 always gets 500, so that some jobs use up
// their retries.
func (h *hookServer) decide(token string, n int) (answer, time.Duration) {
	if h.hash(token, -1)%25 == 0 {
		return answerError, 0
	}
	x := h.hash(token, n)
	switch p := x % 100; {
	case p < 65:
		return answerOK, 0
	case p < 82:
		return answerError, 0
	case p < 87:
		return answerRefused, 0
	}
	return answerSlow, time.Duration((x >> 8) % uint64(h.maxSlow))
}

// hash mixes the seed, the token and a delivery number.
func (h *hookServer) hash(token string, n int) uint64 {
	f := fnv.New64a()
	fmt.Fprintf(f, "%d/%s/%d", h.seed, token, n)
	return f.Sum64()
}

// answers returns how many deliveries got each answer.
func (h *hookServer) answers() [answerKinds]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.counts
}

func (h *hookServer) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return h.srv.Close()
	}
	return nil
}
