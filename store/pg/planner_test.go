package pg_test

import (
	"context"
	"testing"

	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// The guarded statements run with index scans only, without JIT and on
// their generic plan; afterwards the transaction plans as it did before,
// whatever it had set (a caller's transaction, with InPgxTx).
func TestIndexScansOnlyRestoresThePlanner(t *testing.T) {
	s := pgtest.OpenWith(t, pg.Options{})
	ctx := context.Background()
	tx, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	const settings = `SELECT current_setting('enable_seqscan') || ' ' || current_setting('enable_bitmapscan') || ' ' ||
		current_setting('jit') || ' ' || current_setting('plan_cache_mode')`
	read := func() string {
		var got string
		if err := tx.QueryRow(ctx, settings).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, set := range []string{"SET LOCAL plan_cache_mode = force_custom_plan", "SET LOCAL enable_seqscan = on", "SET LOCAL jit = on"} {
		if _, err := tx.Exec(ctx, set); err != nil {
			t.Fatal(err)
		}
	}
	before := read()
	if _, err := tx.Exec(ctx, pg.IndexScansOnlySQL); err != nil {
		t.Fatal(err)
	}
	if got, want := read(), "off off off force_generic_plan"; got != want {
		t.Errorf("guarded statements plan with %q, want %q", got, want)
	}
	if _, err := tx.Exec(ctx, pg.RestorePlannerSQL); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != before {
		t.Errorf("after the guarded statements the transaction plans with %q, want %q as before them", got, before)
	}
}
