package tickwork

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// maxTrackedFile is the size past which a tracked file is a build output or
// generated data, not source: such files belong in bin/ or are made again by
// a command, and one committed repeatedly swells the history past what a
// submission may carry.
const maxTrackedFile = 1 << 20

// TestNoLargeTrackedFiles fails when git tracks a file over maxTrackedFile,
// such as a binary built at the repository root.
func TestNoLargeTrackedFiles(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v (the check needs a git checkout)", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		fi, err := os.Stat(name)
		if err != nil {
			continue // deleted in the work tree, not yet committed
		}
		if fi.Size() > maxTrackedFile {
			t.Errorf("%s is tracked and %d bytes (over %d): build it into bin/ or make it again from a command, and git rm --cached it", name, fi.Size(), maxTrackedFile)
		}
	}
}
