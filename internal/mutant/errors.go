package mutant

import "fmt"

func errNotBuilt(name string) error {
	return fmt.Errorf("mutant %q: this binary was built without -tags mutants", name)
}
