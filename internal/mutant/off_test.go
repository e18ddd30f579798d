//go:build !mutants

package mutant

import "testing"

func TestOffBuildNeverActivates(t *testing.T) {
	if err := Select(MaxFetch); err == nil {
		t.Fatal("Select succeeded in a build without the mutants tag")
	}
	if On(MaxFetch) {
		t.Fatal("On is true without the mutants tag")
	}
}
