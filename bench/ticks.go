package main

import (
	"context"
	"fmt"
	"math"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// tickInstrument is the worker's tick duration histogram (worker/telemetry.go).
const tickInstrument = "job.worker.tick_duration"

// tickMeter collects one worker's tick durations in fine buckets (15%
// apart from 50 µs to about two minutes), so that quantiles are read to
// within 15%.
type tickMeter struct {
	reader   *sdkmetric.ManualReader
	provider *sdkmetric.MeterProvider
}

func newTickMeter() *tickMeter {
	reader := sdkmetric.NewManualReader()
	view := sdkmetric.NewView(sdkmetric.Instrument{Name: tickInstrument},
		sdkmetric.Stream{Aggregation: sdkmetric.AggregationExplicitBucketHistogram{Boundaries: tickBounds}})
	return &tickMeter{reader: reader, provider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithView(view))}
}

var tickBounds = func() []float64 {
	var b []float64
	for ms := 0.05; ms < 120_000; ms *= 1.15 {
		b = append(b, math.Round(ms*1000)/1000)
	}
	return b
}()

// tickStats are the ticks recorded so far: a count per bucket, and the
// longest, in ms.
type tickStats struct {
	counts []uint64
	count  uint64
	max    float64
}

// add merges o into s.
func (s *tickStats) add(o tickStats) {
	if s.counts == nil {
		s.counts = make([]uint64, len(o.counts))
	}
	for i, c := range o.counts {
		s.counts[i] += c
	}
	s.count += o.count
	s.max = max(s.max, o.max)
}

func (s tickStats) String() string {
	return fmt.Sprintf("%d ticks, p50 <= %.2f ms, p99 <= %.2f ms, max %.1f ms", s.count, s.quantile(0.5), s.quantile(0.99), s.max)
}

func (m *tickMeter) stats(ctx context.Context) (tickStats, error) {
	var rm metricdata.ResourceMetrics
	if err := m.reader.Collect(ctx, &rm); err != nil {
		return tickStats{}, fmt.Errorf("collect tick durations: %w", err)
	}
	st := tickStats{counts: make([]uint64, len(tickBounds)+1)}
	for _, sm := range rm.ScopeMetrics {
		for _, met := range sm.Metrics {
			h, ok := met.Data.(metricdata.Histogram[float64])
			if met.Name != tickInstrument || !ok {
				continue
			}
			for _, dp := range h.DataPoints {
				st.count += dp.Count
				for i, c := range dp.BucketCounts {
					st.counts[i] += c
				}
				if v, ok := dp.Max.Value(); ok {
					st.max = max(st.max, v)
				}
			}
		}
	}
	return st, nil
}

// quantile returns the upper bound of the bucket holding the q-quantile
// (the longest tick when that is smaller, or the bucket is the last,
// unbounded one).
func (s tickStats) quantile(q float64) float64 {
	rank := uint64(math.Ceil(q * float64(s.count)))
	var seen uint64
	for i, c := range s.counts {
		seen += c
		if seen >= rank && c > 0 {
			if i < len(tickBounds) {
				return min(tickBounds[i], s.max)
			}
			return s.max
		}
	}
	return 0
}
