package console

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

func scrape(t *testing.T, url string) string {
	t.Helper()
	code, body := do(t, newRequest(t, "GET", url+"/metrics", ""))
	if code != 200 {
		t.Fatalf("GET /metrics: %d %s", code, body)
	}
	return body
}

// TestMetricsReuseOneReadingPerTTL: the queue gauges match the rows, a
// scrape within the TTL repeats the last reading (the table is not read
// again), and one after it sees a new job.
func TestMetricsReuseOneReadingPerTTL(t *testing.T) {
	f := newFixture(t)
	const ttl = 300 * time.Millisecond
	s, err := New(Options{Store: f.st, MetricsTTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	first := scrape(t, srv.URL)
	for _, want := range []string{
		`tickwork_jobs{queue="email",status="available"} 3`,
		`tickwork_jobs{queue="webhook",status="failed"} 2`,
		`tickwork_queue_results_window{queue="webhook",result="failed"} 2`,
		`tickwork_queue_oldest_ready_age_seconds{queue="email"}`,
	} {
		if !strings.Contains(first, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, first)
		}
	}
	start := time.Now()
	err = f.st.InTx(context.Background(), func(tx store.Tx) error {
		_, err := tx.InsertJobs(context.Background(), []store.NewJob{{ID: ulid.Make(), Queue: "email", Payload: json.RawMessage(`{}`)}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if again := scrape(t, srv.URL); time.Since(start) < ttl && again != first {
		t.Errorf("a scrape within the TTL read the table again:\n%s", again)
	}
	time.Sleep(ttl)
	if later := scrape(t, srv.URL); !strings.Contains(later, `tickwork_jobs{queue="email",status="available"} 4`) {
		t.Errorf("a scrape after the TTL does not see the new job:\n%s", later)
	}
}
