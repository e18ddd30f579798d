package pg_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/store/pg"
)

// planNode is a node of EXPLAIN (FORMAT JSON).
type planNode struct {
	NodeType   string     `json:"Node Type"`
	Relation   string     `json:"Relation Name"`
	Index      string     `json:"Index Name"`
	IndexCond  string     `json:"Index Cond"`
	TIDCond    string     `json:"TID Cond"`
	Filter     string     `json:"Filter"`
	ActualRows float64    `json:"Actual Rows"`
	Loops      float64    `json:"Actual Loops"`
	Removed    float64    `json:"Rows Removed by Filter"`
	Hit        float64    `json:"Shared Hit Blocks"` // with analyze: buffers the node and those below it read
	Read       float64    `json:"Shared Read Blocks"`
	Plans      []planNode `json:"Plans"`
}

// planOptions say how a statement is explained.
type planOptions struct {
	mode    string   // plan_cache_mode: force_generic_plan or force_custom_plan
	guarded bool     // the store plans it with index scans only
	analyze bool     // run it (in a transaction rolled back afterwards)
	setup   []string // statements to run first, in the same transaction
}

// prepared is the setup that prepares query as tw_plan, planned as o says
// (its mode, and index scans only if guarded) as the store plans it.
func prepared(o planOptions, query string) []string {
	setup := []string{"SET LOCAL plan_cache_mode = " + o.mode, "PREPARE tw_plan AS " + query}
	if o.guarded {
		setup = append(setup, pg.IndexScansOnlySQL)
	}
	return setup
}

// explainPlan returns the plan of query, prepared, for EXECUTE with args,
// as the store runs it.
func explainPlan(t *testing.T, s *pg.Store, o planOptions, query, args string) planNode {
	t.Helper()
	ctx := t.Context()
	// A connection of its own: the prepared statement dies with it.
	tx, done := planTx(t, s.Pool().Config().ConnConfig.Copy(), append(prepared(o, query), o.setup...))
	defer done()
	explain := "EXPLAIN (FORMAT JSON) "
	if o.analyze {
		explain = "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "
	}
	var out []struct {
		Plan planNode `json:"Plan"`
	}
	var text string
	execute := "EXECUTE tw_plan"
	if args != "" { // a statement without parameters takes no parentheses
		execute += "(" + args + ")"
	}
	if err := tx.QueryRow(ctx, explain+execute, pgx.QueryExecModeSimpleProtocol).Scan(&text); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil || len(out) != 1 {
		t.Fatalf("EXPLAIN output %q: %v", text, err)
	}
	return out[0].Plan
}

// planTx opens a connection of cfg, begins a transaction there and runs
// setup in it; done rolls it back and closes the connection (a plan test
// opens one per plan, so each must go before the next). It rolls back
// before it closes: a closed connection's server process ends its
// transaction when it gets to it, and until then holds the rows the
// explained statement locked, which the next plan's reservation, SKIP
// LOCKED, then passes over (seen on a loaded machine: the sequenced
// reservation took none of its ten cold heads).
func planTx(t *testing.T, cfg *pgx.ConnConfig, setup []string) (tx pgx.Tx, done func()) {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	closeConn := func() { conn.Close(context.Background()) }
	if tx, err = conn.Begin(ctx); err != nil {
		closeConn()
		t.Fatal(err)
	}
	done = func() {
		if err := tx.Rollback(context.Background()); err != nil {
			t.Errorf("roll back the explained transaction: %v", err)
		}
		closeConn()
	}
	for _, q := range setup {
		if _, err := tx.Exec(ctx, q); err != nil {
			done()
			t.Fatalf("%s: %v", q, err)
		}
	}
	return tx, done
}

// walk calls fn for every node of the plan with the nodes above it,
// nearest last.
func (n planNode) walk(above []planNode, fn func(n planNode, above []planNode)) {
	fn(n, above)
	for _, c := range n.Plans {
		c.walk(append(above[:len(above):len(above)], n), fn)
	}
}

// String prints the plan one node a line, for failure messages.
func (n planNode) String() string {
	var b strings.Builder
	n.walk(nil, func(n planNode, above []planNode) {
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", len(above)), n.NodeType)
		if n.Relation != "" {
			fmt.Fprintf(&b, " on %s", n.Relation)
		}
		if n.Index != "" {
			fmt.Fprintf(&b, " using %s", n.Index)
		}
		if n.IndexCond != "" {
			fmt.Fprintf(&b, " cond %s", n.IndexCond)
		}
		if n.TIDCond != "" {
			fmt.Fprintf(&b, " cond %s", n.TIDCond)
		}
		if n.Filter != "" {
			fmt.Fprintf(&b, " filter %s", n.Filter)
		}
		if n.Loops > 0 {
			fmt.Fprintf(&b, " (rows %.0f x %.0f loops, %.0f removed)", n.ActualRows, n.Loops, n.Removed)
		}
		b.WriteByte('\n')
	})
	return b.String()
}

// boundedJobScans returns a complaint for every read of the jobs table
// that is not an index scan of one of the indexes allowed, bounded by an
// index condition, or a TID scan of the tuples a condition lists (the
// reservation's update of the rows it locked): a sequential scan, a
// bitmap scan (which reads every entry its condition matches, dead or
// alive, and sorts or rechecks them all) or a walk of a whole index grows
// with the table.
func boundedJobScans(plan planNode, allowed ...string) []string {
	var bad []string
	plan.walk(nil, func(n planNode, _ []planNode) {
		if n.Relation != "jobs" || n.NodeType == "ModifyTable" {
			return
		}
		switch {
		case n.NodeType == "Tid Scan" && n.TIDCond != "":
		case n.NodeType != "Index Scan" && n.NodeType != "Index Only Scan":
			bad = append(bad, fmt.Sprintf("%s on jobs", n.NodeType))
		case !slices.Contains(allowed, n.Index):
			bad = append(bad, fmt.Sprintf("index scan of %s, want one of %v", n.Index, allowed))
		case n.IndexCond == "":
			bad = append(bad, fmt.Sprintf("index scan of all of %s", n.Index))
		}
	})
	return bad
}

// boundedScansOf lists the scans of relation that are not index scans
// bounded by a condition.
func boundedScansOf(plan planNode, relation string) []string {
	var bad []string
	plan.walk(nil, func(n planNode, _ []planNode) {
		if n.Relation != relation || n.NodeType == "ModifyTable" {
			return
		}
		if n.NodeType == "Bitmap Heap Scan" && len(n.Plans) == 1 && n.Plans[0].IndexCond != "" {
			return // the bitmap of an index scan bounded by a condition
		}
		if (n.NodeType != "Index Scan" && n.NodeType != "Index Only Scan") || n.IndexCond == "" {
			bad = append(bad, fmt.Sprintf("%s of %s (index %q, condition %q)", n.NodeType, relation, n.Index, n.IndexCond))
		}
	})
	return bad
}

// rowsReadOf is how many rows the scans of relations returned or
// filtered out, over all their loops.
func rowsReadOf(plan planNode, relations ...string) float64 {
	read := 0.0
	plan.walk(nil, func(n planNode, _ []planNode) {
		for _, r := range relations {
			if n.Relation == r && n.NodeType != "ModifyTable" {
				read += (n.ActualRows + n.Removed) * max(n.Loops, 1)
			}
		}
	})
	return read
}
