//go:build mutants

package pg

import (
	"strings"
	"testing"

	"github.com/tickwork/tickwork/internal/mutant"
)

// TestPlantPanicsOnAnEditThatFindsNothing: a statement whose text drifted
// from its planted bug's edit stops the store from opening, whether or
// not that bug is selected.
func TestPlantPanicsOnAnEditThatFindsNothing(t *testing.T) {
	drifted := []plantedEdit{{mutant.PGCompleteUnchecked, func(s *statements) *string { return &s.completions[0][completeDeleting] }, "status = 'running'", "true"}}
	for _, selected := range []string{"", mutant.PGCompleteUnchecked} {
		if err := mutant.Select(selected); err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(p.(string), mutant.PGCompleteUnchecked) {
					t.Errorf("selected %q: plant recovered %v, want a panic naming the bug", selected, p)
				}
			}()
			var st statements
			st.completions[0][completeDeleting] = completeSQL
			st.plant(drifted)
		}()
	}
	mutant.Select("")
}

// TestSelectedBugRewritesItsStatements: selecting a planted bug makes its
// edits in the statements a store builds, and only its own: every
// statement a planted bug may edit is production's with the selected
// bug's edits made, each once. (Bugs share statements, and a statement
// may hold an edit's text more than once.)
func TestSelectedBugRewritesItsStatements(t *testing.T) {
	defer mutant.Select("")
	s := &Store{ident: `"tickwork_x"`}
	if err := mutant.Select(""); err != nil {
		t.Fatal(err)
	}
	prod := newStatements(s.sql)
	for _, e := range plantedEdits {
		if err := mutant.Select(e.bug); err != nil {
			t.Fatal(err)
		}
		planted := newStatements(s.sql)
		want := prod
		for _, mine := range plantedEdits {
			if mine.bug == e.bug {
				at := mine.at(&want)
				*at = strings.Replace(*at, mine.old, mine.new, 1)
			}
		}
		if *e.at(&planted) == *e.at(&prod) {
			t.Errorf("planted bug %s: its statement was not edited:\n%s", e.bug, *e.at(&planted))
		}
		for _, o := range plantedEdits {
			if *o.at(&planted) != *o.at(&want) {
				t.Errorf("planted bug %s: the statement %s edits is not production's with %s's edits:\n%s", e.bug, o.bug, e.bug, *o.at(&planted))
			}
		}
	}
}
