package pgtest

import (
	"fmt"
	"os"

	"go.uber.org/goleak"
)

// verifyNoLeaks is goleak.VerifyTestMain's check, run after the container
// is gone so that the Docker client's goroutines have ended.
//
// One goroutine of Toxiproxy's is let be: a toxic's pipe that a removed
// toxic left blocked on its send, seen once in store/pg's tests under
// -race (the silent-listener test's proxy). It belongs to the proxy, not
// to the store.
func verifyNoLeaks() int {
	if err := goleak.Find(goleak.IgnoreTopFunction("github.com/Shopify/toxiproxy/v2/toxics.(*NoopToxic).Pipe")); err != nil {
		fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
		return 1
	}
	return 0
}
