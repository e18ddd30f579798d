//go:build mutants

package mutant

import "testing"

func TestSelectTurnsOneBugOn(t *testing.T) {
	if err := Select(MaxFetch); err != nil {
		t.Fatal(err)
	}
	defer Select("")
	if !On(MaxFetch) || On(NoRescue) {
		t.Fatalf("On(%q)=%v On(%q)=%v", MaxFetch, On(MaxFetch), NoRescue, On(NoRescue))
	}
}
