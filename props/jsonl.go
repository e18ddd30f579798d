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
	br := bufio.NewReader(r)
	params, n, err := readHeader(br)
	if err != nil {
		return History{}, err
	}
	events, cutErr, err := readEvents(br, n+1)
	if err == nil {
		err = cutErr // a whole history has no excuse for a cut-short line
	}
	if err != nil {
		return History{}, fmt.Errorf("read history %w", err)
	}
	return History{Params: params, Events: events}, nil
}

// readHeader reads up to and including the first line that is not blank,
// the header, and returns its params and line number.
func readHeader(br *bufio.Reader) (Params, int, error) {
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return Params{}, n, fmt.Errorf("read history line %d: %w", n, err)
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			var hd header
			if derr := strictDecoder(trimmed).Decode(&hd); derr != nil {
				return Params{}, n, fmt.Errorf("read history line %d (header): %w", n, derr)
			}
			if hd.Format != HistoryFormat {
				return Params{}, n, fmt.Errorf("read history line %d: format %q, want %q", n, hd.Format, HistoryFormat)
			}
			return hd.Params, n, nil
		}
		if err != nil {
			return Params{}, n, errors.New("read history: no header line")
		}
	}
}

// ReadEvents reads events written one per line, as a worker's history log
// has them (no header). Blank lines are skipped. The last line of a writer
// killed mid-line may be cut short: if it does not decode it is dropped and
// counted in cut (0 or 1). Any other line that does not decode, or a read
// error, is an error that starts "line N: ", and no events come back.
func ReadEvents(r io.Reader) (events []Event, cut int, err error) {
	events, cutErr, err := readEvents(bufio.NewReader(r), 1)
	if err != nil {
		return nil, 0, err
	}
	if cutErr != nil {
		cut = 1
	}
	return events, cut, nil
}

// readEvents decodes one event per line from br, numbering lines from n.
// A last line without its newline that does not decode is left to the
// caller to forgive: its error comes back as cutErr, not err.
func readEvents(br *bufio.Reader, n int) (events []Event, cutErr, err error) {
	for ; ; n++ {
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, nil, fmt.Errorf("line %d: %w", n, rerr)
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			var e Event
			switch derr := strictDecoder(trimmed).Decode(&e); {
			case derr == nil:
				events = append(events, e)
			case rerr != nil: // the last line, without its newline
				cutErr = fmt.Errorf("line %d: %w", n, derr)
			default:
				return nil, nil, fmt.Errorf("line %d: %w", n, derr)
			}
		}
		if rerr != nil {
			return events, cutErr, nil
		}
	}
}

// strictDecoder decodes line, refusing fields the types do not have.
func strictDecoder(line []byte) *json.Decoder {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	return dec
}
