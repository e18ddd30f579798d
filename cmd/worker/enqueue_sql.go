package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tickwork/tickwork/store"
)

// printSQLUsage is -print-sql's line in enqueue's help.
const printSQLUsage = "print the SQL statement that enqueues this job through the schema's enqueue function (for a service in another language), and enqueue nothing"

// enqueueSQL returns the statement that enqueues job, as the flags
// describe it, through the schema's enqueue function: what another
// language's service would send (docs/USAGE.md, "Enqueue from SQL").
// Flags the function has no argument for are refused, naming them.
func (f *enqueueFlags) enqueueSQL(schema string, job store.NewJob) (string, error) {
	for _, unsupported := range []struct {
		flag string
		set  bool
	}{{"-sequence", f.sequence != ""}, {"-after", f.after.after != ""}, {"-unique-by-payload", f.unique.byPayload}, {"-unique-per", f.unique.per != 0}} {
		if unsupported.set {
			return "", usagef("-print-sql: %s has no argument in the enqueue function (see docs/USAGE.md, Enqueue from SQL)", unsupported.flag)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT %s.enqueue(%s, %s", sqlIdent(schema), sqlLiteral(job.Queue), sqlLiteral(string(job.Payload)))
	arg := func(name, value string) { fmt.Fprintf(&b, ", %s => %s", name, value) }
	switch {
	case f.in > 0:
		arg("scheduled_at", "now() + make_interval(secs => "+strconv.FormatFloat(f.in.Seconds(), 'f', -1, 64)+")")
	case !job.ScheduledAt.IsZero():
		arg("scheduled_at", sqlLiteral(job.ScheduledAt.UTC().Format(time.RFC3339Nano)))
	}
	if job.Priority != 0 {
		arg("priority", strconv.Itoa(job.Priority))
	}
	if job.MaxAttempts > 0 {
		arg("max_attempts", strconv.Itoa(job.MaxAttempts))
	}
	if f.unique.key != "" {
		arg("unique_key", sqlLiteral(f.unique.key))
	}
	var while []string
	for name := range strings.SplitSeq(f.unique.while, ",") {
		if name = strings.TrimSpace(name); name != "" {
			while = append(while, name)
		}
	}
	if len(while) > 0 {
		arg("unique_while", sqlLiteral("{"+strings.Join(while, ",")+"}"))
	}
	b.WriteString(");")
	return b.String(), nil
}

// sqlIdent quotes an identifier for PostgreSQL.
func sqlIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// sqlLiteral quotes a string constant for PostgreSQL (standard conforming
// strings, the default since 9.1: a backslash is an ordinary character).
func sqlLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
