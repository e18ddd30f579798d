package pg

import "strings"

// IsReservation reports whether statement, as the server reports one
// that runs (pg_stat_activity.query, cut at track_activity_query_size, a
// kilobyte by default, the schema spelled out or written {schema}), is a
// statement that reserves jobs (reserveSQL or plainReserveSQL): one that
// must skip, never wait for, the rows other transactions hold
// (props.ReservationWaits). Only its opening is compared, since the server
// may cut the rest.
func IsReservation(statement string) bool {
	s := strings.Join(strings.Fields(statement), " ")
	return strings.HasPrefix(s, reservationOpenings[0]) || strings.HasPrefix(s, reservationOpenings[1])
}

// reservationOpenings are the starts of reserveSQL and plainReserveSQL, up
// to before their first schema-qualified names, whitespace collapsed.
var reservationOpenings = [2]string{opening(reserveSQL), opening(plainReserveSQL)}

func opening(sql string) string {
	s := strings.Join(strings.Fields(sql), " ")
	return s[:strings.Index(s, schemaToken)]
}
