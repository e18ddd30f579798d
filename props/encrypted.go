package props

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/envelope"
)

// The fields an Encrypted event names (Event.Fields): the payload, the
// output, or the metadata value of a key ("metadata value " and the key).
const (
	SealedPayload  = "payload"
	SealedOutput   = "output"
	SealedMetadata = "metadata value "
)

// sealedField is one field of a job that was stored encrypted, and its
// clear text, which no stored row of the job may hold. checked is the
// last column text (payload, output or metadata) found to hold the field
// sealed: most commits change a row's status and leave its contents, and
// decoding them again after each was a quarter of a simulation's
// allocations.
type sealedField struct{ field, clear, checked string }

// sealedIndex: job row id -> its encrypted fields. A retry or a snooze's
// next row inherits the payload's and metadata's (not the output's: the
// next attempt records its own); a deleted row's entry goes.
type sealedIndex map[ulid.ULID][]sealedField

// encrypted records an Encrypted event: e.Job's fields e.Fields were
// sealed, their clear texts e.Clear.
func (c *Checker) encrypted(e *Event) {
	if len(e.Fields) != len(e.Clear) {
		c.report(WellFormed, fmt.Sprintf("job %s: %d encrypted fields but %d clear texts", e.Job, len(e.Fields), len(e.Clear)))
		return
	}
	if c.sealed == nil {
		c.sealed = sealedIndex{}
	}
	for i, f := range e.Fields {
		c.sealed[e.Job] = append(c.sealed[e.Job], sealedField{field: f, clear: e.Clear[i]})
	}
}

// checkSealed checks a commit's rows against property EncryptedAtRest:
// a row of a job whose fields were sealed holds each of them as an
// envelope, never its clear text.
func (c *Checker) checkSealed(e *Event, sc *commitScope) {
	if len(c.sealed) == 0 {
		return
	}
	for _, l := range sc.links {
		for _, f := range c.sealed[l.prev] {
			if f.field != SealedOutput {
				c.sealed[l.next] = append(c.sealed[l.next], f)
			}
		}
	}
	for _, ch := range e.Jobs {
		if ch.After == nil {
			delete(c.sealed, ch.Before.ID)
			continue
		}
		fields := c.sealed[ch.After.ID]
		for i, f := range fields {
			column := storedColumn(ch.After, f.field)
			if column == f.checked {
				continue
			}
			stored, ok := storedField(column, f.field)
			if !ok {
				continue
			}
			if !envelope.Is([]byte(stored)) || strings.Contains(stored, f.clear) {
				c.report(EncryptedAtRest, fmt.Sprintf("job %s stores its encrypted %s as %s, not sealed (clear text %s)",
					ch.After.ID, f.field, stored, f.clear), withJobs(*ch.After))
				continue
			}
			fields[i].checked = column
		}
	}
}

// storedColumn returns the text of r's column that holds field, "" for
// a field no column holds.
func storedColumn(r *JobRow, field string) string {
	switch {
	case field == SealedPayload:
		return r.Payload
	case field == SealedOutput:
		return r.Output
	case strings.HasPrefix(field, SealedMetadata):
		return r.Metadata
	}
	return ""
}

// storedField returns what column, storedColumn's text, stores of field,
// and false when it has none of it yet (an output before completion).
func storedField(column, field string) (string, bool) {
	name, ok := strings.CutPrefix(field, SealedMetadata)
	if !ok {
		return column, field == SealedPayload || column != ""
	}
	var entries map[string]json.RawMessage
	if json.Unmarshal([]byte(column), &entries) != nil {
		return column, true // not an object: the value is nowhere sealed
	}
	v, ok := entries[name]
	return string(v), ok
}
