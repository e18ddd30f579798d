//go:build !mutants

package mutant

import "fmt"

// Enabled reports whether this binary was built with the mutants tag.
const Enabled = false

// On reports whether the planted bug name is active. Without the mutants
// build tag it is always false, so planted code compiles away.
func On(name string) bool { return false }

// Select would choose the active bug; without the mutants tag it only
// accepts the empty name.
func Select(name string) error {
	if name != "" {
		return errNotBuilt(name)
	}
	return nil
}

func errNotBuilt(name string) error {
	return fmt.Errorf("mutant %q: this binary was built without -tags mutants", name)
}
