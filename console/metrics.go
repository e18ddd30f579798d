package console

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The console's /metrics describes the queues, not a process: rows per
// queue and status, the age of each queue's oldest ready job, and results
// in the throughput window. Counting rows reads the jobs table, so a scrape
// reuses the last reading until it is MetricsTTL old: however often
// Prometheus scrapes, the table is read at most once per TTL. (Fenced
// results leave no row behind; each worker counts its own as
// job.result.fenced on its -metrics-addr.)

var (
	descJobs = prometheus.NewDesc("tickwork_jobs", "Job rows by queue and status (terminal rows until retention deletes them).",
		[]string{"queue", "status"}, nil)
	descOldest = prometheus.NewDesc("tickwork_queue_oldest_ready_age_seconds", "How long the oldest available job of the queue has waited.",
		[]string{"queue"}, nil)
	descResults = prometheus.NewDesc("tickwork_queue_results_window", "Jobs that completed or failed (failed or lost) within the console's window.",
		[]string{"queue", "result"}, nil)
	descReadAt = prometheus.NewDesc("tickwork_console_metrics_read_timestamp_seconds", "When the figures were read from the database.",
		nil, nil)
)

// queueCollector serves the queue metrics from a reading at most ttl old.
type queueCollector struct {
	s   *Server
	ttl time.Duration

	mu   sync.Mutex
	last *Overview
	at   time.Time // when last was read, on this process's clock
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descJobs, descOldest, descResults, descReadAt} {
		ch <- d
	}
}

// reading returns the cached overview, reading a new one when it is older
// than ttl. The lock makes concurrent scrapes share one reading.
func (c *queueCollector) reading() (*Overview, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last != nil && time.Since(c.at) < c.ttl {
		return c.last, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	o, err := c.s.overview(ctx)
	if err != nil {
		return nil, err
	}
	c.last, c.at = o, time.Now()
	return o, nil
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	o, err := c.reading()
	if err != nil {
		c.s.opts.Logger.Error("console metrics: reading the queues failed", "err", err)
		ch <- prometheus.NewInvalidMetric(descJobs, err)
		return
	}
	for _, q := range o.Queues {
		for _, st := range allStatuses {
			ch <- prometheus.MustNewConstMetric(descJobs, prometheus.GaugeValue, float64(q.Counts[st]), q.Queue, string(st))
		}
		if q.OldestReadyAgeSec != nil {
			ch <- prometheus.MustNewConstMetric(descOldest, prometheus.GaugeValue, *q.OldestReadyAgeSec, q.Queue)
		}
		ch <- prometheus.MustNewConstMetric(descResults, prometheus.GaugeValue, float64(q.Completed), q.Queue, "completed")
		ch <- prometheus.MustNewConstMetric(descResults, prometheus.GaugeValue, float64(q.Failed), q.Queue, "failed")
	}
	ch <- prometheus.MustNewConstMetric(descReadAt, prometheus.GaugeValue, float64(o.Now.UnixMicro())/1e6)
}

// metricsHandler serves the queue metrics in the Prometheus text format.
func (s *Server) metricsHandler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(&queueCollector{s: s, ttl: s.opts.MetricsTTL})
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
