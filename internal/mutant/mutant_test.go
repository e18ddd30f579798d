package mutant

import "testing"

func TestSelectRejectsUnknown(t *testing.T) {
	if err := Select("no-such-bug"); err == nil {
		t.Fatal("Select accepted an unknown mutant")
	}
}

func TestKnownNames(t *testing.T) {
	for _, n := range Names {
		if !Known(n) {
			t.Errorf("Known(%q) = false", n)
		}
	}
	if Known("") {
		t.Error("Known(\"\") = true")
	}
}
