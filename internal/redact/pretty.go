package redact

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/tickwork/tickwork/internal/envelope"
)

// MaxIndentDepth is the deepest nesting that indents further: a document
// nested thousands deep would otherwise spend most of its pretty form, the
// square of its depth, on leading spaces.
const MaxIndentDepth = 16

// Pretty returns a JSON document indented for reading, its secrets hidden
// (every value under a key secret by name or named headers, and in every
// other string what Text hides; an encrypted document is "encrypted", as
// is an encrypted metadata value: envelope.Hide), keys in the document's order, nesting
// indented two spaces a level up to MaxIndentDepth, and at most limit
// bytes long: cut reports that the document went on. It reads the
// document only as far as it writes, so a large document costs no more
// than limit. A document that is not JSON is shown as its text, within
// the same limit, with the secrets Text finds hidden.
func Pretty(raw []byte, limit int) (text string, cut bool) {
	if envelope.Is(raw) {
		return envelope.Shown, false
	}
	raw = envelope.Hide(raw)
	p := printer{limit: limit, indent: true}
	if !json.Valid(raw) {
		p.write(Text(string(raw[:min(len(raw), limit)])))
		return p.b.String(), p.cut || len(raw) > limit
	}
	p.document(raw)
	return p.b.String(), p.cut
}

// Compact returns a JSON document with its secrets hidden as Pretty hides
// them (an encrypted document is the JSON string "encrypted"), without
// white space. A document that is not JSON becomes a JSON
// string of its text with the secrets Text finds hidden.
func Compact(raw []byte) json.RawMessage {
	raw = envelope.Hide(raw)
	if !json.Valid(raw) {
		return json.RawMessage(quote(Text(string(raw))))
	}
	p := printer{limit: math.MaxInt}
	p.document(raw)
	return json.RawMessage(p.b.String())
}

// Indent lays out a valid JSON document as Pretty does, indentation
// capped at MaxIndentDepth, hiding nothing: for a document whose secrets
// are hidden already, such as one built of Compact's results.
func Indent(raw []byte) []byte {
	p := printer{limit: math.MaxInt, indent: true, plain: true}
	p.document(raw)
	return []byte(p.b.String())
}

// printer writes a document into b until it holds limit bytes.
type printer struct {
	b      strings.Builder
	limit  int
	indent bool
	plain  bool // hide nothing
	cut    bool
}

// frame is an open object or array.
type frame struct {
	object    bool
	n         int  // members written
	expectKey bool // an object's next token is a key
	secret    bool // every value inside is hidden
	keySecret bool // the value of the object's current key is hidden
}

// document writes the valid JSON document raw, token by token, until it
// ends or the limit is reached.
func (p *printer) document(raw []byte) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var stack []frame
	for !p.cut {
		tok, err := d.Token()
		if err != nil { // raw is valid: io.EOF, the end
			return
		}
		top := len(stack) - 1
		if delim, ok := tok.(json.Delim); ok && (delim == '}' || delim == ']') {
			f := stack[top]
			stack = stack[:top]
			if f.n > 0 {
				p.newline(len(stack))
			}
			p.write(delim.String())
			continue
		}
		if top >= 0 && stack[top].object && stack[top].expectKey {
			p.key(&stack[top], tok.(string), len(stack))
			continue
		}
		secret := false
		if top >= 0 {
			f := &stack[top]
			if !f.object {
				p.member(f, len(stack))
			}
			secret, f.expectKey = f.secret || (f.object && f.keySecret), f.object
		}
		if delim, ok := tok.(json.Delim); ok {
			p.write(delim.String())
			stack = append(stack, frame{object: delim == '{', expectKey: delim == '{', secret: secret})
			continue
		}
		p.write(p.scalar(tok, secret))
	}
}

// member starts the next member of f at depth.
func (p *printer) member(f *frame, depth int) {
	if f.n > 0 {
		p.write(",")
	}
	f.n++
	p.newline(depth)
}

func (p *printer) key(f *frame, k string, depth int) {
	p.member(f, depth)
	p.write(quote(k) + ":")
	if p.indent {
		p.write(" ")
	}
	f.keySecret, f.expectKey = !p.plain && (Name(k) || isHeaders(k)), false
}

// scalar writes a string, number, bool or null, hidden when secret (null
// stays null: it holds nothing).
func (p *printer) scalar(tok json.Token, secret bool) string {
	switch x := tok.(type) {
	case nil:
		return "null"
	case string:
		if p.plain {
			return quote(x)
		}
		if !secret {
			return quote(Text(x))
		}
	case json.Number:
		if !secret {
			return x.String()
		}
	case bool:
		if !secret {
			return strconv.FormatBool(x)
		}
	}
	return quote(Mask)
}

func isHeaders(key string) bool {
	for _, w := range words(key) {
		if w == "headers" {
			return true
		}
	}
	return false
}

func (p *printer) write(s string) {
	if p.cut {
		return
	}
	if room := p.limit - p.b.Len(); len(s) > room {
		s, p.cut = truncateUTF8(s, room), true
	}
	p.b.WriteString(s)
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	n = max(n, 0)
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

func (p *printer) newline(depth int) {
	if p.indent {
		p.write("\n" + strings.Repeat("  ", min(depth, MaxIndentDepth)))
	}
}

// quote writes s as a JSON string, leaving <, > and & as they are (a page
// escapes what it shows; a terminal needs no escaping of them).
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
