package console

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/redact"
	"github.com/tickwork/tickwork/store"
)

// JobQuery selects a page of jobs, newest first. Before and After are the
// keyset cursors (an id from the previous page), never an offset: a page
// deep in a table of millions costs the same as the first.
type JobQuery struct {
	Queue  string       `json:"queue,omitempty"`
	Status store.Status `json:"status,omitempty"`
	Text   string       `json:"text,omitempty"`  // a job id, or text in the payload or failure reason
	Worker ulid.ULID    `json:"worker,omitzero"` // only rows started by this worker
	Before ulid.ULID    `json:"before,omitzero"`
	After  ulid.ULID    `json:"after,omitzero"`
	Limit  int          `json:"limit"`
}

// pageSize is the default and largest page of the jobs list.
const pageSize, maxPageSize = 50, 500

// parseJobQuery reads a JobQuery from URL parameters: queue, status, q,
// worker, before, after, limit. Text that reaches SQL must be UTF-8
// without NUL, and a search at most maxSearchText characters.
func parseJobQuery(v url.Values) (JobQuery, error) {
	q := JobQuery{Queue: v.Get("queue"), Status: store.Status(v.Get("status")), Text: strings.TrimSpace(v.Get("q")), Limit: pageSize}
	for _, name := range []string{"queue", "status", "q"} {
		if err := checkText(name, v.Get(name)); err != nil {
			return q, err
		}
	}
	if n := utf8.RuneCountInString(q.Text); n > maxSearchText {
		return q, fmt.Errorf("q is %d characters long; a search may have at most %d", n, maxSearchText)
	}
	if q.Status != "" && !q.Status.Valid() {
		return q, fmt.Errorf("unknown status %q", q.Status)
	}
	for _, c := range []struct {
		name string
		to   *ulid.ULID
	}{{"before", &q.Before}, {"after", &q.After}, {"worker", &q.Worker}} {
		if s := v.Get(c.name); s != "" {
			id, err := ulid.ParseStrict(s)
			if err != nil {
				return q, fmt.Errorf("%s=%q is not an id", c.name, s)
			}
			*c.to = id
		}
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxPageSize {
			return q, fmt.Errorf("limit=%q: want a number from 1 to %d", s, maxPageSize)
		}
		q.Limit = n
	}
	return q, nil
}

// searches reports whether the query looks for text in the rows, which
// reads every row its other filters leave.
func (q JobQuery) searches() bool {
	if q.Text == "" {
		return false
	}
	_, err := ulid.ParseStrict(q.Text)
	return err != nil
}

// values is the query as URL parameters, without the cursors.
func (q JobQuery) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"queue": q.Queue, "status": string(q.Status), "q": q.Text} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if !q.Worker.IsZero() {
		v.Set("worker", q.Worker.String())
	}
	if q.Limit != pageSize {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return v
}

// JobList is one page of jobs (attempts), newest first.
type JobList struct {
	Now   time.Time `json:"now"`
	Query JobQuery  `json:"query"`
	Jobs  []Attempt `json:"jobs"`
	// Older and Newer are the cursors of the neighbouring pages; zero when
	// there is no such page.
	Older ulid.ULID `json:"older,omitzero"`
	Newer ulid.ULID `json:"newer,omitzero"`
}

func (s *Server) listJobs(ctx context.Context, q JobQuery) (*JobList, error) {
	if q.searches() {
		release, err := s.search.enter(ctx, s.opts.QueryTimeout)
		if err != nil {
			return nil, fmt.Errorf("search the jobs for %q: %w", q.Text, err)
		}
		defer release()
	}
	l := &JobList{Query: q}
	err := s.readTx(ctx, func(db pgx.Tx, st store.Tx) error {
		var err error
		if l.Now, err = st.Now(ctx); err != nil {
			return err
		}
		// One row more than the page says whether there is a page beyond.
		sql, args := s.jobsSQL(q, q.Limit+1)
		rows, err := db.Query(ctx, sql, args...)
		if err != nil {
			return fmt.Errorf("list jobs: %w", err)
		}
		l.Jobs, err = pgx.CollectRows(rows, scanAttempt)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the jobs: %w", err)
	}
	more := len(l.Jobs) > q.Limit
	if more {
		l.Jobs = l.Jobs[:q.Limit]
	}
	if !q.After.IsZero() {
		slices.Reverse(l.Jobs) // read oldest first to page forward
	}
	if len(l.Jobs) > 0 {
		if more || !q.After.IsZero() {
			l.Older = l.Jobs[len(l.Jobs)-1].ID
		}
		if !q.Before.IsZero() || (more && !q.After.IsZero()) {
			l.Newer = l.Jobs[0].ID
		}
	}
	return l, nil
}

// jobsSQL builds the page's statement. Ordering by the primary key with a
// cursor on it lets PostgreSQL walk the index from the cursor and stop
// after limit rows.
func (s *Server) jobsSQL(q JobQuery, limit int) (string, []any) {
	var where []string
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "$?", "$"+strconv.Itoa(len(args))))
	}
	order := "DESC"
	switch {
	case !q.After.IsZero():
		add("id > $?", uuid(q.After))
		order = "ASC"
	case !q.Before.IsZero():
		add("id < $?", uuid(q.Before))
	}
	if q.Queue != "" {
		add("queue = $?", q.Queue)
	}
	if q.Status != "" {
		add("status = $?", string(q.Status))
	}
	if !q.Worker.IsZero() {
		add("started_by = $?", uuid(q.Worker))
	}
	if q.Text != "" {
		if !q.searches() {
			add("id = $?", uuid(ulid.MustParseStrict(q.Text)))
		} else {
			add(`(payload::text ILIKE $? ESCAPE '\' OR failed_reason ILIKE $? ESCAPE '\')`, "%"+likeEscape.Replace(q.Text)+"%")
		}
	}
	sql := `SELECT id, queue, status, attempt, created_at, scheduled_at, started_at, started_by,
		coalesce(completed_at, failed_at, cancelled_at), coalesce(failed_reason, ''), next_attempt_id,
		coalesce(schedule_name, '') FROM {jobs}`
	if len(where) > 0 {
		sql += " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, limit)
	sql += fmt.Sprintf(" ORDER BY id %s LIMIT $%d", order, len(args))
	return s.sql(sql), args
}

var likeEscape = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

func uuid(id ulid.ULID) pgtype.UUID { return pgtype.UUID{Bytes: id, Valid: true} }

// scanAttempt reads a row of the list's columns (everything but payload
// and metadata), its reason redacted.
func scanAttempt(r pgx.CollectableRow) (Attempt, error) {
	var a Attempt
	var id, by, next pgtype.UUID
	var status string
	var started, ended pgtype.Timestamptz
	err := r.Scan(&id, &a.Queue, &status, &a.Attempt, &a.CreatedAt, &a.ScheduledAt, &started, &by, &ended, &a.Reason, &next, &a.ScheduleName)
	a.ID, a.StartedBy, a.NextAttempt = id.Bytes, by.Bytes, next.Bytes
	a.Status, a.Reason = store.Status(status), redact.Text(a.Reason)
	a.CreatedAt, a.ScheduledAt = a.CreatedAt.UTC(), a.ScheduledAt.UTC()
	if started.Valid {
		a.StartedAt = started.Time.UTC()
	}
	if ended.Valid {
		a.EndedAt = ended.Time.UTC()
	}
	return a, err
}
