package pg

import "strings"

// IsReservation reports whether statement, as the server reports one
// that runs (pg_stat_activity.query, cut at track_activity_query_size, a
// kilobyte by default, the schema spelled out or written {schema}), is the
// statement that reserves jobs: the one that must skip, never wait for,
// the rows other transactions hold (props.ReservationWaits). Only its
// opening is compared, since the server may cut the rest.
func IsReservation(statement string) bool {
	return strings.HasPrefix(strings.Join(strings.Fields(statement), " "), reservationOpening)
}

// reservationOpening is the start of reserveSQL, up to before the first
// schema-qualified name, with its whitespace collapsed.
var reservationOpening = func() string {
	s := strings.Join(strings.Fields(reserveSQL), " ")
	return s[:strings.Index(s, schemaToken)]
}()
