package tickwork

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// outsideRef matches a reference to a document or ticket a reader of the
// repository has never seen: the behaviour spec by name or section, or an
// issue by number. Built from pieces, so that this file does not match it.
var outsideRef = regexp.MustCompile(`\b` + "S" + `PEC\b|\x{00A7}|\b[Ii]ssues? #?[0-9]`)

// TestNoOutsideReferences: code, comments, migrations and docs say things
// in the project's own words instead of citing the behaviour spec's
// sections or issue numbers, which no user of the repository can read.
func TestNoOutsideReferences(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && notOurs(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".sql":
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := outsideRef.FindString(line); m != "" {
				t.Errorf("%s:%d cites %q, outside the repository: say what it means instead", path, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOutsideRefMatchesWhatItMeans: the pattern takes the spec's name and
// section sign and an issue's number, and leaves words that contain them.
func TestOutsideRefMatchesWhatItMeans(t *testing.T) {
	for _, s := range []string{"(" + "S" + "PEC 10)", "the " + "S" + "PEC's defaults", "section \u00a73", "(is" + "sue 14)", "is" + "sues 11 and 12", "Is" + "sue #7"} {
		if !outsideRef.MatchString(s) {
			t.Errorf("outsideRef misses %q", s)
		}
	}
	for _, s := range []string{"ScheduleSpec", "SPECIAL", "an issue with the lease", "tissue 3"} {
		if outsideRef.MatchString(s) {
			t.Errorf("outsideRef matches %q", s)
		}
	}
}
