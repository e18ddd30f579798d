package pg

import (
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// ULIDs are stored as uuid: the same 16 bytes, compared byte by byte, so
// ORDER BY id is ULID order. Times are timestamptz (microseconds, see
// rules.Truncate); the store hands out UTC times and zero values for NULL.

// idArg encodes a row's own id (never NULL, even for the zero ULID).
func idArg(id ulid.ULID) pgtype.UUID { return pgtype.UUID{Bytes: id, Valid: true} }

// refArg encodes a reference to a row: the zero ULID is NULL.
func refArg(id ulid.ULID) pgtype.UUID {
	return pgtype.UUID{Bytes: id, Valid: id != ulid.ULID{}}
}

func idArgs(ids []ulid.ULID) []pgtype.UUID {
	out := make([]pgtype.UUID, len(ids))
	for i, id := range ids {
		out[i] = idArg(id)
	}
	return out
}

// timeArg encodes a time; the zero time is NULL.
func timeArg(t time.Time) pgtype.Timestamptz {
	return pgtype.Timestamptz{Time: rules.Truncate(t), Valid: !t.IsZero()}
}

// durationArg encodes a duration as an exact interval of microseconds,
// truncated toward zero like time.Duration.Truncate(time.Microsecond), so
// now + d in SQL equals store/mem's now.Add(d.Truncate(time.Microsecond)).
func durationArg(d time.Duration) pgtype.Interval {
	return pgtype.Interval{Microseconds: d.Microseconds(), Valid: true}
}

// fromInterval reads an interval from a row as a duration within [0,
// clockrng.MaxDuration]: a row written by hand may hold any interval, and
// its microseconds alone overflow a time.Duration past 292 years. A day
// counts 24 hours and a month 30 days; a negative part counts as none.
func fromInterval(iv pgtype.Interval) time.Duration {
	us := clockrng.MulDuration(time.Microsecond, iv.Microseconds)
	days := clockrng.MulDuration(24*time.Hour, int64(iv.Days))
	months := clockrng.MulDuration(30*24*time.Hour, int64(iv.Months))
	return clockrng.ClampDuration(clockrng.ClampDuration(us+days) + months)
}

func toULID(u pgtype.UUID) ulid.ULID {
	if !u.Valid {
		return ulid.ULID{}
	}
	return ulid.ULID(u.Bytes)
}

func toTime(t pgtype.Timestamptz) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}
