package configtest

import (
	"maps"
	"strings"
	"testing"
)

func TestEveryFieldHasACase(t *testing.T) {
	if _, err := Cases(); err != nil {
		t.Fatal(err)
	}
}

// TestAFieldWithoutACaseFails stands for a field added to Config later:
// the cases fail until it has a value.
func TestAFieldWithoutACaseFails(t *testing.T) {
	missing := maps.Clone(values)
	delete(missing, "DrainTimeout")
	_, err := casesOf(missing)
	if err == nil || !strings.Contains(err.Error(), "Config.DrainTimeout has no value") {
		t.Fatalf("cases without DrainTimeout: err = %v, want it named", err)
	}
	defaulted := maps.Clone(values)
	defaulted["MaxFetch"] = []value{{set: 5}}
	if _, err := casesOf(defaulted); err == nil || !strings.Contains(err.Error(), "Config.MaxFetch: the value 5 is the default") {
		t.Fatalf("a default value for MaxFetch: err = %v, want it named", err)
	}
}
