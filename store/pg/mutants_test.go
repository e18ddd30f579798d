package pg

import (
	"slices"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/internal/mutant"
)

// TestEveryPlantedEditFindsItsText: each planted bug of store/pg's SQL
// edits text its statement holds, so that it is planted when selected.
// The statements are the ones a store builds when it opens.
func TestEveryPlantedEditFindsItsText(t *testing.T) {
	s := &Store{ident: `"tickwork_x"`}
	for _, e := range plantedEdits {
		st := newStatements(s.sql)
		if stmt := *e.at(&st); !strings.Contains(stmt, e.old) {
			t.Errorf("planted bug %s: its statement does not hold %q:\n%s", e.bug, e.old, stmt)
		}
	}
}

// TestEveryStatementBugIsPlanted: every planted bug of store/pg whose
// code is SQL has an edit; pg-hints-kept is planted in Go (hints.go),
// pg-dead-unchecked too (mutants_split.go), pg-readonly-kept
// (readonly.go), pg-bulk-delete-unchecked (jobs_delete.go) and
// pg-pass-fenced-dropped (jobpass.go).
func TestEveryStatementBugIsPlanted(t *testing.T) {
	for _, name := range mutant.Names {
		if !strings.HasPrefix(name, "pg-") || name == mutant.PGHintsKept || name == mutant.PGDeadUnchecked || name == mutant.PGReadOnlyKept ||
			name == mutant.PGBulkDeleteUnchecked || name == mutant.PGPassFencedDropped {
			continue
		}
		if !slices.ContainsFunc(plantedEdits, func(e plantedEdit) bool { return e.bug == name }) {
			t.Errorf("planted bug %s has no edit in plantedEdits", name)
		}
	}
}
