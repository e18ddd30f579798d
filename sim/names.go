package sim

import (
	"strconv"
	"strings"

	"github.com/oklog/ulid/v2"
)

// names gives jobs and worker rows short, stable names for the trace, in
// the order the run first sees them: j1, j2, ... and w0.1 (process w0's
// first registration).
type names struct {
	jobs    map[ulid.ULID]int
	jobIDs  []ulid.ULID // jobIDs[n-1] is job n
	workers map[ulid.ULID]string
}

func newNames() names {
	return names{jobs: map[ulid.ULID]int{}, workers: map[ulid.ULID]string{}}
}

// job returns the job's name, naming it if it is new.
func (n *names) job(id ulid.ULID) string {
	var b [24]byte
	return string(n.appendJob(b[:0], id))
}

// appendJob appends job(id).
func (n *names) appendJob(b []byte, id ulid.ULID) []byte {
	if id == (ulid.ULID{}) {
		return append(b, '-')
	}
	k, ok := n.jobs[id]
	if !ok {
		n.jobIDs = append(n.jobIDs, id)
		k = len(n.jobIDs)
		n.jobs[id] = k
	}
	return strconv.AppendInt(append(b, 'j'), int64(k), 10)
}

// jobList names jobs, in the order given, as [j1 j2].
func (n *names) jobList(ids []ulid.ULID) string {
	return string(n.appendJobList(nil, ids))
}

// appendJobList appends jobList(ids).
func (n *names) appendJobList(b []byte, ids []ulid.ULID) []byte {
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ' ')
		}
		b = n.appendJob(b, id)
	}
	return append(b, ']')
}

// worker returns the worker row's name ("w?" for one not seen registering).
func (n *names) worker(id ulid.ULID) string {
	if id == (ulid.ULID{}) {
		return "-"
	}
	if s, ok := n.workers[id]; ok {
		return s
	}
	return "w?" + id.String()[20:]
}

// replaceIDs rewrites the ULIDs in text (an error message) as names.
func (n *names) replaceIDs(text string) string {
	if !strings.ContainsAny(text, "0123456789") {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		if i+ulid.EncodedSize <= len(text) {
			if id, err := ulid.ParseStrict(text[i : i+ulid.EncodedSize]); err == nil {
				if _, ok := n.jobs[id]; ok {
					b.WriteString(n.job(id))
					i += ulid.EncodedSize
					continue
				}
				if s, ok := n.workers[id]; ok {
					b.WriteString(s)
					i += ulid.EncodedSize
					continue
				}
			}
		}
		b.WriteByte(text[i])
		i++
	}
	return b.String()
}

// all returns every name given so far, by id.
func (n *names) all() map[ulid.ULID]string {
	out := make(map[ulid.ULID]string, len(n.jobs)+len(n.workers))
	for id, k := range n.jobs {
		out[id] = "j" + strconv.Itoa(k)
	}
	for id, s := range n.workers {
		out[id] = s
	}
	return out
}
