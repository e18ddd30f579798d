package storetest

import (
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/format"
	"github.com/tickwork/tickwork/store"
)

// ts and id are the suite's short names for store.State's formatting, used
// in nearly every failure message.
func ts(t time.Time) string { return format.Time(t) }

func id(u ulid.ULID) string { return format.ID(u) }

// formatDuplicates formats InsertJobs' duplicates, so that the stores'
// answers compare as text.
func formatDuplicates(dups []store.Duplicate) string {
	lines := make([]string, len(dups))
	for i, d := range dups {
		lines[i] = fmt.Sprintf("#%d of %s", d.Index, store.FormatJob(d.Existing))
	}
	return "duplicates [" + strings.Join(lines, "; ") + "]"
}
