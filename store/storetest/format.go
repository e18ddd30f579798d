package storetest

import (
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// ts and id are the suite's short names for store.State's formatting, used
// in nearly every failure message.
func ts(t time.Time) string { return store.FormatTime(t) }

func id(u ulid.ULID) string { return store.FormatID(u) }
