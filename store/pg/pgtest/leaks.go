package pgtest

import (
	"fmt"
	"os"

	"go.uber.org/goleak"
)

// verifyNoLeaks is goleak.VerifyTestMain's check, run after the container
// is gone so that the Docker client's goroutines have ended.
func verifyNoLeaks() int {
	if err := goleak.Find(); err != nil {
		fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
		return 1
	}
	return 0
}
