package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// newMetrics returns a meter provider whose instruments, together with the
// Go runtime and process collectors, are exported through the returned
// Prometheus registry.
func newMetrics() (*sdkmetric.MeterProvider, *prometheus.Registry, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, nil, fmt.Errorf("create the Prometheus exporter: %w", err)
	}
	return sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter)), reg, nil
}

// readinessCheck reports why the process cannot do its work, or nil when it
// can.
type readinessCheck func(ctx context.Context) error

// opsServer serves /metrics, /healthz and /readyz.
type opsServer struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
	log  *slog.Logger
}

// readyTimeout bounds one readiness check, so a hung database answers
// "not ready" instead of hanging the probe.
const readyTimeout = 2 * time.Second

// startOpsServer listens on addr at once, so that a port in use is an error
// at start, and serves in the background until shutdown.
//
// /healthz answers 200 while the process is up. /readyz answers 200 when
// ready returns nil and 503 with its reason otherwise. /metrics is the
// registry in the Prometheus text format.
func startOpsServer(addr string, reg prometheus.Gatherer, ready readinessCheck, log *slog.Logger) (*opsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serve metrics and health on %q (-metrics-addr): %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		if err := ready(ctx); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	s := &opsServer{
		srv:  &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second},
		ln:   ln,
		done: make(chan struct{}),
		log:  log,
	}
	go s.serve()
	return s, nil
}

func (s *opsServer) serve() {
	defer close(s.done)
	if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		s.log.Error("metrics and health server stopped", "addr", s.ln.Addr().String(), "err", err)
	}
}

// addr is the address the server listens on (useful with port 0).
func (s *opsServer) addr() string { return s.ln.Addr().String() }

// shutdown stops the server, letting requests in progress finish until ctx
// is done, and returns when its goroutine has ended.
func (s *opsServer) shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, s.srv.Close())
	}
	<-s.done
	return err
}
