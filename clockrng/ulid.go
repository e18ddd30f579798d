package clockrng

import (
	"time"

	"github.com/oklog/ulid/v2"
)

// NewULID returns a ULID whose time part is t (millisecond precision) and
// whose random part comes from r. The same t and the same state of r give the
// same ULID; the package-global ULID entropy is never used.
func NewULID(t time.Time, r *Rand) ulid.ULID {
	id, err := ulid.New(ulid.Timestamp(t), r)
	if err != nil {
		// Only a time before 1970 or after year 10889 gets here.
		panic("clockrng: cannot build a ULID for time " + t.String() + ": " + err.Error())
	}
	return id
}
