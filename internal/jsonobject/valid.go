package jsonobject

import "encoding/json"

// valid is json.Valid, deciding the common text itself: ASCII, nested a
// little. The scanner behind json.Valid calls a function per byte, which
// was most of what reading and writing a job's metadata cost.
func valid(b []byte) bool {
	return surelyValid(b) || json.Valid(b)
}

// maxDepth is how deep surelyValid follows objects and arrays; deeper
// text goes to json.Valid.
const maxDepth = 64

// surelyValid reports whether b is one JSON value with only white space
// around it, in a subset of JSON it reads itself: false means invalid or
// outside the subset (bytes past ASCII, deep nesting).
func surelyValid(b []byte) bool {
	r := reader{b: b}
	r.space()
	if !r.value(0) {
		return false
	}
	r.space()
	return r.i == len(b)
}

// reader reads JSON text from b[i:].
type reader struct {
	b []byte
	i int
}

func (r *reader) space() {
	for r.i < len(r.b) && (r.b[r.i] == ' ' || r.b[r.i] == '\t' || r.b[r.i] == '\n' || r.b[r.i] == '\r') {
		r.i++
	}
}

// peek returns the byte at i, 0 past the end (never valid where read).
func (r *reader) peek() byte {
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
}

func (r *reader) value(depth int) bool {
	switch c := r.peek(); {
	case c == '"':
		return r.str()
	case c == '{' || c == '[':
		return depth < maxDepth && r.composite(c, depth+1)
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(r.b)-r.i >= len(lit) && string(r.b[r.i:r.i+len(lit)]) == lit {
			r.i += len(lit)
			return true
		}
	}
	return false
}

// composite reads an object (open '{') or an array ('[').
func (r *reader) composite(open byte, depth int) bool {
	closer := byte(']')
	if open == '{' {
		closer = '}'
	}
	r.i++
	r.space()
	if r.peek() == closer {
		r.i++
		return true
	}
	for {
		if open == '{' {
			if r.peek() != '"' || !r.str() {
				return false
			}
			r.space()
			if r.peek() != ':' {
				return false
			}
			r.i++
			r.space()
		}
		if !r.value(depth) {
			return false
		}
		r.space()
		switch r.peek() {
		case ',':
			r.i++
			r.space()
		case closer:
			r.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string of ASCII without control characters.
func (r *reader) str() bool {
	for r.i++; r.i < len(r.b); r.i++ {
		switch c := r.b[r.i]; {
		case c == '"':
			r.i++
			return true
		case c < 0x20 || c >= 0x80:
			return false
		case c == '\\':
			if !r.escape() {
				return false
			}
		}
	}
	return false
}

// escape reads the escape whose backslash is at i, leaving i at its end.
func (r *reader) escape() bool {
	r.i++
	switch r.peek() {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		if len(r.b)-r.i < 5 {
			return false
		}
		for _, h := range r.b[r.i+1 : r.i+5] {
			if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
				return false
			}
		}
		r.i += 4
		return true
	}
	return false
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (r *reader) number() bool {
	if r.peek() == '-' {
		r.i++
	}
	switch c := r.peek(); {
	case c == '0':
		r.i++
	case c >= '1' && c <= '9':
		r.digits()
	default:
		return false
	}
	if r.peek() == '.' {
		r.i++
		if !r.digits() {
			return false
		}
	}
	if c := r.peek(); c == 'e' || c == 'E' {
		r.i++
		if c := r.peek(); c == '+' || c == '-' {
			r.i++
		}
		if !r.digits() {
			return false
		}
	}
	return true
}

// digits reads one digit or more.
func (r *reader) digits() bool {
	start := r.i
	for c := r.peek(); c >= '0' && c <= '9'; c = r.peek() {
		r.i++
	}
	return r.i > start
}
