package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/internal/localpg"
	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/internal/proccpu"
)

// testURL returns the test database, found as the library's tests find it
// (DATABASE_URL, else the local server), failing under CI and skipping
// elsewhere when there is none.
func testURL(t *testing.T) string {
	url, err := localpg.Default.Find(context.Background())
	if err != nil {
		long.Unavailable(t, "no PostgreSQL for the comparison: "+err.Error())
	}
	return url
}

// TestCompareTiny runs the whole comparison with River on a few hundred
// jobs, so that the benchmark cannot rot unnoticed (compareTiny).
func TestCompareTiny(t *testing.T) {
	compareTiny(t, []string{"river"}, "10,100")
}

// TestCompareGraphileTiny does the same with graphile-worker, in both its
// settings, at one concurrency. It needs Node.js: without it the test fails
// under CI and is skipped elsewhere.
func TestCompareGraphileTiny(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		long.Unavailable(t, "graphile-worker needs Node.js: "+err.Error())
	}
	compareTiny(t, []string{"graphile", "graphile-unbatched"}, "10")
}

// compareTiny runs compare of tickwork and systems at the concurrencies
// inflight on a few hundred jobs: every system processes the jobs each
// run asks for and none beyond what it inserted (the backlog and as many
// again), every figure gets a ratio against each system, the worker's
// processor time is known, and no schema is left behind.
func compareTiny(t *testing.T, systems []string, inflight string) {
	url := testURL(t)
	// The process in the name: two runs of the tests on one database
	// (two checkouts' make check) would otherwise share schemas.
	prefix := fmt.Sprintf("benchtest_%d_", os.Getpid())
	var out, errOut bytes.Buffer
	args := []string{"compare", "-database-url", url, "-schema-prefix", prefix, "-systems", strings.Join(systems, ","),
		"-waiting", "300", "-inflight", inflight, "-process", "300", "-batch", "128", "-latency-samples", "5", "-rounds", "1"}
	if code := run(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("bench compare exited %d: %s\n%s", code, errOut.String(), out.String())
	}
	text := out.String()
	t.Log(text)
	if !strings.Contains(text, "synchronous_commit = ") {
		t.Error("the output does not say whether commits are durable")
	}
	concurrencies := len(strings.Split(inflight, ","))
	completed := regexp.MustCompile(`(?m)^(tickwork|River|graphile|graphile-unbatched)\s+300 waiting .*: (\d+) jobs completed`).FindAllStringSubmatch(text, -1)
	if want := concurrencies * (1 + len(systems)); len(completed) != want {
		t.Fatalf("want %d throughput runs (%d systems x %d concurrencies), found %d", want, 1+len(systems), concurrencies, len(completed))
	}
	for _, m := range completed {
		if n, _ := strconv.Atoi(m[2]); n < 300 || n > 600 {
			t.Errorf("%s completed %d jobs, want the 300 asked for, at most the 600 inserted", m[1], n)
		}
	}
	ratio := `\s+\d+\.\d+x\s+\d+\.\d+x`
	ratios := regexp.MustCompile(`(?m)^(throughput|bulk enqueue|enqueue-to-start).*\s\d+\.\d+(`+ratio+`){`+strconv.Itoa(len(systems))+`}$`).FindAllString(text, -1)
	if want := concurrencies + 3; len(ratios) != want {
		t.Errorf("want %d figures with both ratios against every system (throughput, bulk enqueue, p50, p99), found %d", want, len(ratios))
	}
	// The worker's processor time is known on every system the bench runs
	// on (the bench's own, or graphile-worker's processes'); the server's
	// only where its processes are visible.
	perJob := regexp.MustCompile(`(?m)^worker process processor time, \d+ in flight, 300 waiting \(µs/job\)((\s+\d+\.\d+){`+strconv.Itoa(1+len(systems))+`})(`+ratio+`)+$`).FindAllStringSubmatch(text, -1)
	if len(perJob) != concurrencies {
		t.Errorf("want the worker's processor time per job for each of %d concurrencies, found %d rows", concurrencies, len(perJob))
	}
	for _, m := range perJob {
		if slices.Contains(strings.Fields(m[1]), "0.0") {
			t.Errorf("a system ran its jobs in no processor time: %q", m[0])
		}
	}
	// Each system's own backends are told apart from the server's other
	// sessions by their application name; on a local server, where
	// /proc shows them, every system's are found and did work.
	if _, local := proccpu.Server(); local {
		own := regexp.MustCompile(`(?m)^its own backends' processor time, \d+ in flight, 300 waiting \(µs/job\)((\s+\d+\.\d+){`+strconv.Itoa(1+len(systems))+`})(`+ratio+`)+$`).FindAllStringSubmatch(text, -1)
		if len(own) != concurrencies {
			t.Errorf("want every system's own backends' processor time for each of %d concurrencies, found %d rows", concurrencies, len(own))
		}
		for _, m := range own {
			if slices.Contains(strings.Fields(m[1]), "0.0") {
				t.Errorf("a system's backends ran its jobs in no processor time: %q", m[0])
			}
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
	text := historyTiny(t, "h", "-jobs", "300", "-window", "100", "-vacuum", "off,defaults,manual,dead", "-sweep", "500", "-sweep-jobs", "200", "-batch", "64")
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
}

// historyTiny runs bench history with args on schemas of a prefix of its
// own (named after name and the process), checks that it left none
// behind, and returns what it printed.
func historyTiny(t *testing.T, name string, args ...string) string {
	t.Helper()
	url := testURL(t)
	prefix := fmt.Sprintf("benchtest_%s_%d_", name, os.Getpid())
	var out, errOut bytes.Buffer
	args = append([]string{"history", "-database-url", url, "-schema-prefix", prefix}, args...)
	if code := run(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("bench history exited %d: %s\n%s", code, errOut.String(), out.String())
	}
	t.Log(out.String())
	assertNoSchemas(t, url, prefix)
	return out.String()
}

// TestBulkTiny runs the bulk run on a few hundred rows: the bulk action
// retries every seeded row, in several batches, both runs print their
// ticks with the ratio, and no schema is left behind.
func TestBulkTiny(t *testing.T) {
	url := testURL(t)
	prefix := fmt.Sprintf("benchtest_%d_", os.Getpid())
	var out, errOut bytes.Buffer
	args := []string{"bulk", "-database-url", url, "-schema-prefix", prefix,
		"-rows", "300", "-batch-size", "50", "-baseline", "300ms", "-rate", "100"}
	if code := run(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("bench bulk exited %d: %s\n%s", code, errOut.String(), out.String())
	}
	text := out.String()
	t.Log(text)
	m := regexp.MustCompile(`during bulk retry of (\d+) rows \(batch size 50\): (\d+) done, 0 refused, (\d+) batches`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("no line of the bulk action's counts")
	}
	if m[1] != "300" || m[2] != "300" {
		t.Errorf("the bulk retry matched %s and did %s rows, want the 300 seeded", m[1], m[2])
	}
	if n, _ := strconv.Atoi(m[3]); n < 6 {
		t.Errorf("%s batches of 50 for 300 rows, want at least 6", m[3])
	}
	if got := strings.Count(text, "all workers: "); got != 3 {
		t.Errorf("%d runs printed their ticks, want 3 (before, during and after)", got)
	}
	if !strings.Contains(text, "during/without before: p50 x") || !strings.Contains(text, "during/without after: p50 x") {
		t.Error("no ratios of the ticks")
	}
	assertNoSchemas(t, url, prefix)
}
