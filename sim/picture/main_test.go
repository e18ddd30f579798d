package picture

import (
	"testing"

	"go.uber.org/goleak"
)

// The browser tests start chromedp's goroutines; none may outlive a test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
