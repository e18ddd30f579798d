package console

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// benchRows is the size of the table the jobs-page benchmark pages through.
const benchRows = 1_000_000

// fillBench fills s's schema with benchRows jobs: ids in time order like
// ULIDs, 97% completed, 2% failed, 1% available, on two queues, written by
// one INSERT ... SELECT (the store's COPY is not what is measured here). It
// returns the id half-way down the table.
func fillBench(b *testing.B, s *Server) ulid.ULID {
	ctx := context.Background()
	pool := s.opts.Store.Pool()
	_, err := pool.Exec(ctx, s.sql(`
		INSERT INTO {jobs} (id, queue, payload, metadata, status, attempt, created_at, scheduled_at,
			started_at, completed_at, failed_at, failed_reason)
		SELECT (lpad(to_hex(1700000000000 + i), 12, '0') || substr(md5(i::text), 1, 20))::uuid,
		       CASE WHEN i % 2 = 0 THEN 'email' ELSE 'webhook' END,
		       json_build_object('user', i, 'action', 'send'), '{}',
		       CASE WHEN i % 100 = 7 THEN 'available' WHEN i % 50 = 3 THEN 'failed' ELSE 'completed' END,
		       0, t, t, t, CASE WHEN i % 50 <> 3 AND i % 100 <> 7 THEN t END,
		       CASE WHEN i % 50 = 3 THEN t END, CASE WHEN i % 50 = 3 THEN 'HTTP 503 from hook ' || i END
		FROM generate_series(1, $1) AS i, LATERAL (SELECT now() - make_interval(secs => $1 - i) AS t) AS ts`), benchRows)
	if err == nil {
		_, err = pool.Exec(ctx, s.sql(`ANALYZE {jobs}`))
	}
	var mid pgtype.UUID
	if err == nil {
		err = pool.QueryRow(ctx, s.sql(`SELECT id FROM {jobs} ORDER BY id OFFSET $1 LIMIT 1`), benchRows/2).Scan(&mid)
	}
	if err != nil {
		b.Fatalf("fill the benchmark table: %v", err)
	}
	return mid.Bytes
}

// BenchmarkJobsPage reads one page of 50 jobs the way the Jobs page does,
// first and half-way down a table of a million rows, and, as the peer in
// the same run, the half-way page by OFFSET. Keyset pages cost the same at
// any depth; OFFSET reads every row before the page.
func BenchmarkJobsPage(b *testing.B) {
	st := pgtest.Open(b, nil)
	s, err := New(Options{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	mid := fillBench(b, s).String()
	for _, c := range []struct{ name, query string }{
		{"newest", ""},
		{"keyset-half-way", "before=" + mid},
		{"keyset-half-way/status=failed", "status=failed&before=" + mid},
		{"keyset-half-way/queue=email", "queue=email&before=" + mid},
		{"text=hook 4242", "q=hook+4242"},
	} {
		b.Run(c.name, func(b *testing.B) {
			v, _ := url.ParseQuery(c.query)
			q, err := parseJobQuery(v)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if l, err := s.listJobs(ctx, q); err != nil || len(l.Jobs) == 0 {
					b.Fatalf("list %s: %d jobs, %v", c.query, len(l.Jobs), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/page")
		})
	}
	b.Run("offset-half-way (peer)", func(b *testing.B) {
		sql := s.sql(fmt.Sprintf(`SELECT id FROM {jobs} ORDER BY id DESC OFFSET %d LIMIT 50`, benchRows/2))
		for b.Loop() {
			rows, err := st.Pool().Query(ctx, sql)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := pgx.CollectRows(rows, pgx.RowTo[pgtype.UUID]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/page")
	})
}
