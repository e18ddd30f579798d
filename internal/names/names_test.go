package names_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
)

// A refused name or key wraps store.ErrInvalid, the sentinel users test,
// and names the value it refuses.
func TestRefusalsWrapStoreErrInvalid(t *testing.T) {
	long := strings.Repeat("q", names.MaxNameBytes+1)
	for input, err := range map[string]error{
		"empty name":    names.Check("queue", ""),
		"long name":     names.Check("queue", long),
		"NUL in name":   names.Check("schedule", "a\x00b"),
		"long key":      names.CheckKey(strings.Repeat("k", names.MaxKeyBytes+1)),
		"bad UTF-8 key": names.CheckKey("\xff"),
	} {
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: got %v, want an error wrapping store.ErrInvalid", input, err)
		}
	}
	if err := names.Check("queue", long); !strings.Contains(err.Error(), "… (129 bytes)") {
		t.Errorf("long name: %v does not quote a cut value with its length", err)
	}
	for _, ok := range []error{names.Check("queue", "q"), names.CheckKey(""), names.CheckKey("k")} {
		if ok != nil {
			t.Errorf("valid input refused: %v", ok)
		}
	}
}
