package interleave

import (
	"bytes"
	"encoding/binary"
	"strings"
)

// The PostgreSQL frontend/backend protocol frames every message after
// startup as a type byte and a big-endian int32 length that counts itself
// but not the type byte.
const headerLen = 5

// Backend messages the gate reads.
const (
	msgReadyForQuery      = 'Z'
	msgErrorResponse      = 'E'
	msgCommandComplete    = 'C'
	msgEmptyQueryResponse = 'I'
	msgPortalSuspended    = 's'
)

// Frontend messages the gate reads. A Sync or a simple Query is a point
// where the client waits for the server: each is answered by exactly one
// ReadyForQuery, which is how the gate knows when a round trip's answers
// are all in.
const (
	msgSync      = 'S'
	msgQuery     = 'Q'
	msgParse     = 'P'
	msgBind      = 'B'
	msgExecute   = 'E'
	msgTerminate = 'X'
	msgCopyData  = 'd'
)

// frontend follows the messages a client writes, across writes.
type frontend struct {
	hdr  [headerLen]byte
	nhdr int    // header bytes of the current message seen so far
	left int    // body bytes of the current message still to come
	body []byte // the current body, kept only for the messages summarized

	prepared map[string]string // statement name -> SQL, from Parse
	bound    string            // SQL of the statement of the last Bind
}

// scan is what one write carries: its complete messages summarized, and
// how many answers it asks for.
type scan struct {
	statements []string // SQL executed, in order ("parse: SQL" for a prepare)
	waits      int      // Syncs and Queries: ReadyForQuerys to come
	first      byte     // type of the first message that starts in the write
	parses     []string // SQL parsed but not yet executed in this write
	executes   int      // Execute messages: each is answered once, or an error ends them
	endsInSync bool     // the write's last message is a whole Sync
}

// feed consumes one write.
func (f *frontend) feed(p []byte) scan {
	var s scan
	for len(p) > 0 {
		if f.nhdr < headerLen {
			n := copy(f.hdr[f.nhdr:], p)
			f.nhdr += n
			p = p[n:]
			if f.nhdr < headerLen {
				break
			}
			if s.first == 0 {
				s.first = f.hdr[0]
			}
			f.left = int(binary.BigEndian.Uint32(f.hdr[1:])) - 4
			f.body = f.body[:0]
			s.endsInSync = false
		}
		n := min(f.left, len(p))
		if kept(f.hdr[0]) {
			f.body = append(f.body, p[:n]...)
		}
		f.left -= n
		p = p[n:]
		if f.left == 0 {
			f.message(f.hdr[0], f.body, &s)
			f.nhdr = 0
			s.endsInSync = f.hdr[0] == msgSync
		}
	}
	for _, q := range s.parses {
		s.statements = append(s.statements, preparePrefix+q)
	}
	s.endsInSync = s.endsInSync && f.nhdr == 0 // no part of another message after it
	return s
}

func kept(typ byte) bool { return typ == msgQuery || typ == msgParse || typ == msgBind }

func (f *frontend) message(typ byte, body []byte, s *scan) {
	switch typ {
	case msgSync:
		s.waits++
	case msgQuery:
		s.waits++
		s.statements = append(s.statements, cstring(body))
	case msgParse:
		name, rest := cutCString(body)
		if f.prepared == nil {
			f.prepared = map[string]string{}
		}
		f.prepared[name] = cstring(rest)
		s.parses = append(s.parses, cstring(rest))
	case msgBind:
		_, rest := cutCString(body) // the portal
		f.bound = f.prepared[cstring(rest)]
		s.parses = removeOne(s.parses, f.bound) // parsed and run in one trip
	case msgExecute:
		s.executes++
		s.statements = append(s.statements, f.bound)
	case msgCopyData:
		if len(s.statements) == 0 || s.statements[len(s.statements)-1] != "copy data" {
			s.statements = append(s.statements, "copy data")
		}
	}
}

func removeOne(list []string, v string) []string {
	for i, x := range list {
		if x == v {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

// cutCString splits a NUL-terminated string off the front of b.
func cutCString(b []byte) (string, []byte) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return string(b), nil
	}
	return string(b[:i]), b[i+1:]
}

func cstring(b []byte) string { s, _ := cutCString(b); return s }

// answer is what the server said to one round trip.
type answer struct {
	tags []string // command tags, in order
	code string   // SQLSTATE of the first error, if any
	tx   byte     // transaction status of the last ReadyForQuery: I, T or E
}

// The words of the error a statement cancelled by pg_cancel_backend gets,
// and the same-length words the gate puts in their place when the
// controller cancelled it to break a deadlock (see rewriteVictimError).
const (
	codeQueryCanceled    = "57014"
	codeDeadlockDetected = "40P01"
	msgUserCancel        = "canceling statement due to user request"
	msgVictim            = "deadlock detected; victim of interleave"
)

// rewriteVictimError turns, in place, the body of an ErrorResponse for a
// cancelled statement into a deadlock error: the same server state (the
// statement failed, the transaction is aborted) with the SQLSTATE the
// server's own deadlock detector gives, which the store treats as worth
// retrying. Lengths are unchanged, so the message frame stays valid. It
// reports whether it rewrote anything.
func rewriteVictimError(body []byte) bool {
	code := errorField(body, 'C')
	if code == nil || string(code) != codeQueryCanceled {
		return false
	}
	copy(code, codeDeadlockDetected)
	if m := errorField(body, 'M'); m != nil && string(m) == msgUserCancel {
		copy(m, msgVictim)
	}
	return true
}

// errorField returns the value of one field of an ErrorResponse body, as a
// slice of it, or nil.
func errorField(body []byte, field byte) []byte {
	for len(body) > 0 && body[0] != 0 {
		typ := body[0]
		end := bytes.IndexByte(body[1:], 0)
		if end < 0 {
			return nil
		}
		if typ == field {
			return body[1 : 1+end]
		}
		body = body[2+end:]
	}
	return nil
}

// commits reports whether a round trip, sent with a transaction block open
// or not (inTx), ends a transaction that may have written: a COMMIT, or a
// statement run outside a block, which PostgreSQL runs in the implicit
// transaction of its Sync (or of its simple Query) and commits there with
// no COMMIT on the wire. That is how a pipelined batch without BEGIN
// commits, store/pg's job pass among them. A round trip that only
// prepares (pgx's Parse and Describe before a statement's first run) runs
// nothing, and one that opens a block with BEGIN commits only if it
// also closes it.
func commits(inTx bool, statements []string) bool {
	for _, s := range statements {
		switch kindOf(s) {
		case prepares:
		case begins:
			inTx = true
		case ends:
			return true
		case rollsBack:
			inTx = false
		case runs:
			if !inTx {
				return true
			}
		}
	}
	return false
}

// implicit reports whether a round trip's statements run in the implicit
// transaction of its Sync: some run, sent outside a transaction block,
// and none opens or ends one.
func implicit(inTx bool, statements []string) bool {
	ran := false
	for _, s := range statements {
		switch kindOf(s) {
		case prepares:
		case runs:
			ran = true
		default:
			return false
		}
	}
	return ran && !inTx
}

// statementKind is what a round trip's statement does to its transaction.
type statementKind int

const (
	runs      statementKind = iota // any other statement
	prepares                       // "parse: ...": prepared, not run
	begins                         // BEGIN, START TRANSACTION
	ends                           // COMMIT, END
	rollsBack                      // ROLLBACK, ABORT
)

// preparePrefix starts a statement of a round trip that only prepared it
// (pgx's Parse and Describe before its first run).
const preparePrefix = "parse: "

// Prepares reports whether statement, as a round trip lists it (Pending,
// Event), was only prepared, not run.
func Prepares(statement string) bool { return strings.HasPrefix(statement, preparePrefix) }

// kindOf reads a statement's kind from its first word.
func kindOf(s string) statementKind {
	if Prepares(s) {
		return prepares
	}
	switch strings.ToLower(firstWord(s)) {
	case "begin", "start":
		return begins
	case "commit", "end":
		return ends
	case "rollback", "abort":
		return rollsBack
	}
	return runs
}

// syncMsg is a Sync as the client writes it, and syncStatement what the
// round trip of a Sync the gate held back (see conn.held) shows.
var syncMsg = []byte{msgSync, 0, 0, 0, 4}

// flushMsg is a Flush: the server sends what it has answered so far.
var flushMsg = []byte{'H', 0, 0, 0, 4}

const syncStatement = "sync: commit the batch"

// firstWord is the first word of a statement, read without scanning the
// rest of it: the controller classifies every pending round trip's
// statements at each settle, and a statement may be kilobytes long.
func firstWord(s string) string {
	isSep := func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '(' }
	if i := strings.IndexFunc(s, func(r rune) bool { return !isSep(r) }); i > 0 {
		s = s[i:]
	} else if i < 0 {
		return ""
	}
	if j := strings.IndexFunc(s, isSep); j >= 0 {
		return s[:j]
	}
	return s
}
