package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/internal/localpg"
)

// testURL returns the test database, found as the library's tests find it
// (DATABASE_URL, else the local server), failing under CI and skipping
// elsewhere when there is none.
func testURL(t *testing.T) string {
	url, err := localpg.Default.Find(context.Background())
	if err != nil {
		msg := "no PostgreSQL for the comparison: " + err.Error()
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return url
}

// TestCompareTiny runs the whole comparison on a few hundred jobs, so that
// the benchmark cannot rot unnoticed: both systems process the jobs each
// run asks for and none beyond what it inserted (the backlog and as many
// again), every figure gets a ratio, and no schema is left behind.
func TestCompareTiny(t *testing.T) {
	url := testURL(t)
	const prefix = "benchtest_"
	var out, errOut bytes.Buffer
	args := []string{"compare", "-database-url", url, "-schema-prefix", prefix,
		"-waiting", "300", "-inflight", "10,100", "-process", "300", "-batch", "128", "-latency-samples", "5", "-rounds", "1"}
	if code := run(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("bench compare exited %d: %s\n%s", code, errOut.String(), out.String())
	}
	text := out.String()
	t.Log(text)
	if !strings.Contains(text, "synchronous_commit = ") {
		t.Error("the output does not say whether commits are durable")
	}
	completed := regexp.MustCompile(`(?m)^(tickwork|River)\s+300 waiting .*: (\d+) jobs completed`).FindAllStringSubmatch(text, -1)
	if len(completed) != 4 {
		t.Fatalf("want 4 throughput runs (2 systems x 2 concurrencies), found %d", len(completed))
	}
	for _, m := range completed {
		if n, _ := strconv.Atoi(m[2]); n < 300 || n > 600 {
			t.Errorf("%s completed %d jobs, want the 300 asked for, at most the 600 inserted", m[1], n)
		}
	}
	ratios := regexp.MustCompile(`(?m)^(throughput|bulk enqueue|enqueue-to-start).*\s(\d+\.\d+)x\s+(\d+\.\d+)x$`).FindAllString(text, -1)
	if len(ratios) != 5 {
		t.Errorf("want 5 figures with both ratios (2 throughput, bulk enqueue, p50, p99), found %d", len(ratios))
	}
	// This process's processor time is known on every system the bench
	// runs on; the server's only where its processes are visible.
	perJob := regexp.MustCompile(`(?m)^worker process processor time, \d+ in flight, 300 waiting \(µs/job\)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+\d+\.\d+x\s+\d+\.\d+x$`).FindAllStringSubmatch(text, -1)
	if len(perJob) != 2 {
		t.Errorf("want the worker process's processor time per job for both concurrencies, found %d rows", len(perJob))
	}
	for _, m := range perJob {
		if m[1] == "0.0" || m[2] == "0.0" {
			t.Errorf("a system ran its jobs in no processor time: %q", m[0])
		}
	}
	assertNoSchemas(t, url, prefix)
}

func assertNoSchemas(t *testing.T, url, prefix string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var left int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_namespace WHERE nspname LIKE $1", prefix+"%").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d schemas named %s* left behind", left, prefix)
	}
}

// TestHistoryTiny runs the growing-history and retention-sweep runs on a
// few hundred jobs: every window is measured, and the sweep deletes every
// old row while the jobs are processed.
func TestHistoryTiny(t *testing.T) {
	url := testURL(t)
	const prefix = "benchtest_h_"
	var out, errOut bytes.Buffer
	args := []string{"history", "-database-url", url, "-schema-prefix", prefix,
		"-jobs", "300", "-window", "100", "-vacuum", "off,defaults,manual,dead", "-sweep", "500", "-sweep-jobs", "200", "-batch", "64"}
	if code := run(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("bench history exited %d: %s\n%s", code, errOut.String(), out.String())
	}
	text := out.String()
	t.Log(text)
	windows := regexp.MustCompile(`(?m)^window +\d+: \d+ finished rows before it, 100 jobs in`).FindAllString(text, -1)
	if len(windows) != 12 {
		t.Errorf("want 3 windows of 100 jobs in each of 4 vacuum modes, found %d", len(windows))
	}
	if !strings.Contains(text, "sweeping 500 old rows (500 deleted") {
		t.Error("the sweep run did not delete the 500 old rows")
	}
	if n := strings.Count(text, "all workers: "); n != 2 {
		t.Errorf("want tick durations for 2 sweep runs, found %d", n)
	}
	assertNoSchemas(t, url, prefix)
}
