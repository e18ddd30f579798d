//go:build mutants

package mutant

import (
	"fmt"
	"strings"
	"sync/atomic"
)

// Enabled reports whether this binary was built with the mutants tag.
const Enabled = true

// selected holds the active bug's name; atomic because -parallel runs
// simulations in several goroutines that all read it.
var selected atomic.Value

// On reports whether the planted bug name is the one selected.
func On(name string) bool {
	s, _ := selected.Load().(string)
	return s != "" && s == name
}

// Select makes name the active bug ("" for none). It fails for a name that
// is not in Names.
func Select(name string) error {
	if name != "" && !Known(name) {
		return errUnknown(name)
	}
	selected.Store(name)
	return nil
}

func errUnknown(name string) error {
	return fmt.Errorf("mutant %q is unknown; known: %s", name, strings.Join(Names, ", "))
}
