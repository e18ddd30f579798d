package console

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// BenchmarkConcurrentSearch runs searchClients clients at once, each
// searching the jobs of a table of benchRows rows through the console's
// handler for text no row holds (the worst case: every row is read), and
// reports the answered searches' p50 and p99, how many were refused (503:
// every slot and waiting place taken, or the statement timeout), and the
// slowest overview and /metrics answer while they ran. Run it with
//
//	go test -run '^$' -bench BenchmarkConcurrentSearch -benchtime 1x ./console/
func BenchmarkConcurrentSearch(b *testing.B) {
	const searchClients, searchesEach = 5, 4
	st := pgtest.Open(b, nil)
	s, err := New(Options{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	fillBench(b, s)
	srv := httptest.NewServer(s)
	defer srv.Close()
	for _, c := range []struct{ name, text string }{
		{"short", "no such text"},
		{"longest", strings.Repeat("z", maxSearchText)},
	} {
		b.Run(c.name, func(b *testing.B) {
			var lat []time.Duration
			var busy, timedOut int
			var mu sync.Mutex
			for b.Loop() {
				stop := make(chan struct{})
				other := make(chan time.Duration, 1)
				go func() { other <- slowestOther(b, srv.URL, stop) }()
				var wg sync.WaitGroup
				for range searchClients {
					wg.Go(func() {
						for range searchesEach {
							start := time.Now()
							status, body := get(b, srv.URL+"/api/jobs?q="+url.QueryEscape(c.text))
							d := time.Since(start)
							mu.Lock()
							switch status {
							case http.StatusOK:
								lat = append(lat, d)
							case http.StatusServiceUnavailable:
								if strings.Contains(body, "took longer than") {
									timedOut++
								} else {
									busy++
								}
							default:
								b.Errorf("search: %d %.200s", status, body)
							}
							mu.Unlock()
						}
					})
				}
				wg.Wait()
				close(stop)
				b.ReportMetric((<-other).Seconds()*1000, "slowest-other-ms")
			}
			slices.Sort(lat)
			if len(lat) > 0 {
				b.ReportMetric(lat[len(lat)/2].Seconds()*1000, "p50-ms")
				b.ReportMetric(lat[(len(lat)*99-1)/100].Seconds()*1000, "p99-ms")
			}
			b.ReportMetric(float64(busy), "refused-busy")
			b.ReportMetric(float64(timedOut), "timed-out")
			b.ReportMetric(float64(len(lat)), "answered")
		})
	}
}

// slowestOther reads the overview and /metrics in turn until stop, and
// returns the slowest answer; any answer but 200 fails the benchmark.
func slowestOther(b *testing.B, base string, stop chan struct{}) time.Duration {
	var slowest time.Duration
	for {
		for _, path := range []string{"/api/", "/metrics"} {
			start := time.Now()
			if status, body := get(b, base+path); status != http.StatusOK {
				b.Errorf("GET %s during searches: %d %.200s", path, status, body)
			}
			slowest = max(slowest, time.Since(start))
		}
		select {
		case <-stop:
			return slowest
		case <-time.After(100 * time.Millisecond):
		}
	}
}
