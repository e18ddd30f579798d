package props

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// HistoryFormat names the JSON lines layout Writer writes: a header line
// {"format": HistoryFormat, "params": Params}, then one Event per line.
const HistoryFormat = "tickwork-history/1"

// header is the first line of a history file.
type header struct {
	Format string `json:"format"`
	Params Params `json:"params"`
}

// A Writer streams a history as JSON lines. The same history always gives
// the same bytes: fields in declaration order, times in RFC 3339 with
// nanoseconds, durations in nanoseconds.
type Writer struct {
	enc *json.Encoder
}

// NewWriter writes the header line for params to w and returns a Writer for
// the events that follow.
func NewWriter(w io.Writer, params Params) (*Writer, error) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(header{Format: HistoryFormat, Params: params}); err != nil {
		return nil, fmt.Errorf("write history header: %w", err)
	}
	return &Writer{enc: enc}, nil
}

// Write appends one event as one line.
func (w *Writer) Write(e Event) error {
	if err := w.enc.Encode(e); err != nil {
		return fmt.Errorf("write history event seq %d: %w", e.Seq, err)
	}
	return nil
}

// WriteJSONLines writes a whole history as JSON lines (see Writer).
func WriteJSONLines(w io.Writer, h History) error {
	hw, err := NewWriter(w, h.Params)
	if err != nil {
		return err
	}
	for _, e := range h.Events {
		if err := hw.Write(e); err != nil {
			return err
		}
	}
	return nil
}

// ReadJSONLines reads a history written by Writer. Blank lines are skipped;
// an unknown field, a wrong format name or a malformed line is an error
// naming the line.
func ReadJSONLines(r io.Reader) (History, error) {
	var h History
	br := bufio.NewReader(r)
	sawHeader := false
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return History{}, fmt.Errorf("read history line %d: %w", n, err)
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if derr := decodeLine(trimmed, n, &h, &sawHeader); derr != nil {
				return History{}, derr
			}
		}
		if err != nil {
			break
		}
	}
	if !sawHeader {
		return History{}, errors.New("read history: no header line")
	}
	return h, nil
}

// decodeLine decodes line n: the header if none was seen yet, else an event.
func decodeLine(line []byte, n int, h *History, sawHeader *bool) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if !*sawHeader {
		var hd header
		if err := dec.Decode(&hd); err != nil {
			return fmt.Errorf("read history line %d (header): %w", n, err)
		}
		if hd.Format != HistoryFormat {
			return fmt.Errorf("read history line %d: format %q, want %q", n, hd.Format, HistoryFormat)
		}
		h.Params, *sawHeader = hd.Params, true
		return nil
	}
	var e Event
	if err := dec.Decode(&e); err != nil {
		return fmt.Errorf("read history line %d: %w", n, err)
	}
	h.Events = append(h.Events, e)
	return nil
}
