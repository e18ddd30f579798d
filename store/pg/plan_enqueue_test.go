package pg_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tickwork/tickwork/store/pg"
)

// nestedPlan is one statement a function ran, as auto_explain reports it.
type nestedPlan struct {
	Query string   `json:"Query Text"`
	Plan  planNode `json:"Plan"`
}

// enqueueFunctionPlansStayBounded: the enqueue function's statements read
// jobs only through bounded index scans over a million keyed rows
// (uniqueBacklog's): its insert, and the lookup of the row holding a key
// already held. EXPLAIN cannot reach the statements of a PL/pgSQL
// function, so auto_explain reports each one the calls run, under the
// plan_cache_mode mode. TestPlansStayBoundedWithAMillionRows calls it with
// fresh statistics, on its fixture: one of its own cost as much again.
func enqueueFunctionPlansStayBounded(t *testing.T, s *pg.Store, mode string) {
	t.Helper()
	plans := functionPlans(t, s, mode, []string{
		`('q', '{}')`,
		`('q', '{}', unique_key => 'new')`,
		`('q', '{}', unique_key => 'k5')`, // held by the backlog's fifth row
	})
	lookups := 0
	for _, p := range plans {
		if bad := boundedJobScans(p.Plan, "jobs_unique_idx"); len(bad) > 0 {
			t.Errorf("%s: %s: %s\n%s", mode, strings.Join(bad, "; "), p.Query, p.Plan)
		}
		if entriesRead(p.Plan, "jobs_unique_idx") > 0 {
			lookups++
		}
	}
	if lookups != 1 {
		t.Errorf("%s: %d statements read jobs_unique_idx; want the lookup of the held key's row, once:\n%v", mode, lookups, plans)
	}
}

// functionPlans runs the enqueue function once for each argument list, in
// a transaction rolled back afterwards, under plan_cache_mode mode, and
// returns the plans of the statements the calls ran.
func functionPlans(t *testing.T, s *pg.Store, mode string, calls []string) []nestedPlan {
	t.Helper()
	fn := pgx.Identifier{s.Schema()}.Sanitize() + ".enqueue"
	var stmts []string
	for _, args := range calls {
		stmts = append(stmts, "SELECT "+fn+args)
	}
	return autoExplained(t, s, []string{"SET LOCAL plan_cache_mode = " + mode}, stmts)
}

// autoExplained runs stmts after setup in a transaction rolled back
// afterwards, and returns the plans auto_explain reports for them and for
// every statement they ran inside functions, in the order they ended.
func autoExplained(t *testing.T, s *pg.Store, setup, stmts []string) []nestedPlan {
	t.Helper()
	ctx := t.Context()
	var mu sync.Mutex
	var plans []nestedPlan
	cfg := s.Pool().Config().ConnConfig.Copy()
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		start := strings.IndexByte(n.Message, '{')
		var p nestedPlan
		if n.Severity != "LOG" || start < 0 || json.Unmarshal([]byte(n.Message[start:]), &p) != nil {
			return
		}
		mu.Lock()
		plans = append(plans, p)
		mu.Unlock()
	}
	tx, done := planTx(t, cfg, append([]string{"LOAD 'auto_explain'", "SET LOCAL auto_explain.log_min_duration = 0",
		"SET LOCAL auto_explain.log_analyze = on", "SET LOCAL auto_explain.log_nested_statements = on",
		"SET LOCAL auto_explain.log_format = json", "SET LOCAL client_min_messages = log"}, setup...))
	defer done()
	for _, q := range stmts {
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(plans) == 0 {
		t.Fatal("auto_explain reported no plan")
	}
	return plans
}
