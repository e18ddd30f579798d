package console

import (
	"fmt"
	"strings"
	"time"
)

// chart is the throughput chart, in pixels, for the SVG in overview.html.
type chart struct {
	W, H, Left, Top   int
	Completed, Failed string // polyline points
	YTicks, XTicks    []chartTick
	BucketSeconds     int
	PeakPerSec        float64
}

type chartTick struct {
	X, Y   float64
	Label  string
	Anchor string // text-anchor
}

// chartBuckets is how many points a line has across the window.
const chartBuckets = 60

// throughputChart averages the per-second results over buckets of
// window/60 and scales them into the plot area: completed and failed jobs
// per second, the last bucket ending at the page's now.
func throughputChart(o *Overview) chart {
	c := chart{W: 760, H: 180, Left: 44, Top: 10}
	window := time.Duration(o.WindowSeconds) * time.Second
	bucket := max(window/chartBuckets, time.Second)
	c.BucketSeconds = int(bucket / time.Second)
	end := o.Now.Unix()
	start := end - int64(window/time.Second)
	var done, failed [chartBuckets]float64
	for _, t := range o.Throughput {
		i := int((t.Second - start) / int64(c.BucketSeconds))
		if i < 0 || i >= chartBuckets {
			continue
		}
		done[i] += float64(t.Completed)
		failed[i] += float64(t.Failed)
	}
	peak := 1.0
	for i := range chartBuckets {
		done[i] /= float64(c.BucketSeconds)
		failed[i] /= float64(c.BucketSeconds)
		peak = max(peak, done[i], failed[i])
	}
	c.PeakPerSec = peak
	plotW, plotH := float64(c.W-c.Left-8), float64(c.H-c.Top-22)
	x := func(i int) float64 { return float64(c.Left) + plotW*(float64(i)+0.5)/chartBuckets }
	y := func(v float64) float64 { return float64(c.Top) + plotH*(1-v/peak) }
	c.Completed, c.Failed = points(done[:], x, y), points(failed[:], x, y)
	for _, f := range []float64{0, 0.5, 1} {
		c.YTicks = append(c.YTicks, chartTick{X: float64(c.Left) - 4, Y: y(peak * f), Label: fmt.Sprintf("%.3g/s", peak*f)})
	}
	for _, i := range []int{0, chartBuckets / 2, chartBuckets} {
		label, anchor := "now", "end"
		if i == 0 {
			anchor = "start"
		}
		if i < chartBuckets {
			label = "−" + (time.Duration(chartBuckets-i) * bucket).String()
		}
		c.XTicks = append(c.XTicks, chartTick{X: float64(c.Left) + plotW*float64(i)/chartBuckets, Y: float64(c.H - 6), Label: label, Anchor: anchor})
	}
	return c
}

func points(v []float64, x func(int) float64, y func(float64) float64) string {
	var b strings.Builder
	for i, f := range v {
		fmt.Fprintf(&b, "%.1f,%.1f ", x(i), y(f))
	}
	return strings.TrimSpace(b.String())
}
