package mem

import (
	"slices"

	"github.com/oklog/ulid/v2"
)

// insertID adds id to the sorted slice ids unless it is already there. New
// ids are usually the largest (ULIDs grow with time), so this is an append.
func insertID(ids []ulid.ULID, id ulid.ULID) []ulid.ULID {
	if n := len(ids); n == 0 || ids[n-1].Compare(id) < 0 {
		return append(ids, id)
	}
	i, found := slices.BinarySearchFunc(ids, id, ulid.ULID.Compare)
	if found {
		return ids
	}
	return slices.Insert(ids, i, id)
}

// removeID deletes id from the sorted slice ids if it is there.
func removeID(ids []ulid.ULID, id ulid.ULID) []ulid.ULID {
	i, found := slices.BinarySearchFunc(ids, id, ulid.ULID.Compare)
	if !found {
		return ids
	}
	return slices.Delete(ids, i, i+1)
}

// searchAfter returns the index of the first id in the sorted slice ids that
// is greater than after.
func searchAfter(ids []ulid.ULID, after ulid.ULID) int {
	i, found := slices.BinarySearchFunc(ids, after, ulid.ULID.Compare)
	if found {
		i++
	}
	return i
}
