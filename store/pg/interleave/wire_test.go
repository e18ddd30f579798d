package interleave

import (
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// encode builds frontend messages as pgx would send them.
func encode(t *testing.T, msgs ...pgproto3.FrontendMessage) []byte {
	t.Helper()
	var b []byte
	for _, m := range msgs {
		var err error
		if b, err = m.Encode(b); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// TestFrontendRoundTrips: a prepare, then a run of the prepared statement
// split across writes at every byte, is summarized and counted the same.
func TestFrontendRoundTrips(t *testing.T) {
	prepare := encode(t, &pgproto3.Parse{Name: "s1", Query: "SELECT $1"}, &pgproto3.Describe{ObjectType: 'S', Name: "s1"}, &pgproto3.Sync{})
	run := encode(t, &pgproto3.Bind{PreparedStatement: "s1", Parameters: [][]byte{[]byte("7")}}, &pgproto3.Execute{}, &pgproto3.Sync{})
	for cut := 0; cut <= len(run); cut++ {
		var f frontend
		s := f.feed(prepare)
		if !slices.Equal(s.statements, []string{"parse: SELECT $1"}) || s.waits != 1 {
			t.Fatalf("prepare: %+v", s)
		}
		a, b := f.feed(run[:cut]), f.feed(run[cut:])
		got := append(a.statements, b.statements...)
		if !slices.Equal(got, []string{"SELECT $1"}) || a.waits+b.waits != 1 {
			t.Fatalf("run cut at %d: %v, %d waits", cut, got, a.waits+b.waits)
		}
	}
	var f frontend
	s := f.feed(encode(t, &pgproto3.Query{String: "begin"}, &pgproto3.Query{String: "commit"}))
	if !slices.Equal(s.statements, []string{"begin", "commit"}) || s.waits != 2 || s.first != msgQuery {
		t.Fatalf("two queries: %+v", s)
	}
	// Parsed and run in one trip (pgx's unnamed statements) counts once.
	s = f.feed(encode(t, &pgproto3.Parse{Query: "SELECT 2"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{}))
	if !slices.Equal(s.statements, []string{"SELECT 2"}) {
		t.Fatalf("unnamed: %v", s.statements)
	}
}

// TestRewriteVictimError: a cancelled statement's error becomes a deadlock
// error of the same length; any other error is left alone.
func TestRewriteVictimError(t *testing.T) {
	body := func(code, msg string) []byte {
		b, err := (&pgproto3.ErrorResponse{Severity: "ERROR", Code: code, Message: msg}).Encode(nil)
		if err != nil {
			t.Fatal(err)
		}
		return b[headerLen:]
	}
	b := body(codeQueryCanceled, msgUserCancel)
	n := len(b)
	if !rewriteVictimError(b) || len(b) != n {
		t.Fatal("a cancelled statement's error was not rewritten")
	}
	var e pgproto3.ErrorResponse
	if err := e.Decode(b); err != nil || e.Code != codeDeadlockDetected || e.Message != msgVictim {
		t.Fatalf("rewritten: %+v (%v)", e, err)
	}
	if other := body("23505", "duplicate key"); rewriteVictimError(other) {
		t.Fatal("a unique violation was rewritten")
	}
	if len(msgVictim) != len(msgUserCancel) {
		t.Fatal("the victim's message must keep the length of the one it replaces")
	}
}

// TestCommits: which round trips end a transaction, as the gate sees them
// (statements after the first write's parse, "parse: " for prepares).
func TestCommits(t *testing.T) {
	for _, c := range []struct {
		inTx       bool
		statements []string
		want       bool
	}{
		{false, []string{"parse: SELECT 1", "parse: UPDATE t SET a = 1"}, false}, // pgx's prepare before a batch
		{false, []string{"SELECT 1", "UPDATE t SET a = 1"}, true},                // a pipelined batch: its Sync commits
		{false, []string{"begin isolation level read committed"}, false},
		{false, []string{"BEGIN", "UPDATE t SET a = 1"}, false},
		{false, []string{"BEGIN", "UPDATE t SET a = 1", "COMMIT"}, true},
		{true, []string{"UPDATE t SET a = 1"}, false},
		{true, []string{"commit"}, true},
		{true, []string{"rollback"}, false},
		{true, []string{"ROLLBACK", "SELECT 1"}, true},
		{false, nil, false},
	} {
		if got := commits(c.inTx, c.statements); got != c.want {
			t.Errorf("commits(%v, %q) = %v, want %v", c.inTx, c.statements, got, c.want)
		}
	}
}

// TestEndsInSync: a write ends in a Sync only if its last whole message
// is one and nothing of another follows it.
func TestEndsInSync(t *testing.T) {
	batch := encode(t, &pgproto3.Bind{PreparedStatement: "s1"}, &pgproto3.Execute{}, &pgproto3.Sync{})
	var f frontend
	if s := f.feed(batch); !s.endsInSync || s.executes != 1 || s.waits != 1 {
		t.Fatalf("a batch: %+v", s)
	}
	var g frontend
	if s := g.feed(append(batch, 'Q', 0)); s.endsInSync {
		t.Fatalf("a batch and the start of a Query's header: %+v", s)
	}
}
