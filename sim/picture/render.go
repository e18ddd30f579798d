package picture

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
)

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"f":     func(v float64) string { return fmt.Sprintf("%.1f", v) },
	"add":   func(a, b float64) float64 { return a + b },
	"sub":   func(a, b float64) float64 { return a - b },
	"bandY": func() float64 { return bandY },
	"hit":   func(line string) bool { return strings.Contains(line, "VIOLATION") },
}).Parse(pageHTML))

// Write renders in as one HTML page to w: inline CSS, inline SVG and a few
// lines of inline script for the hover text; it loads nothing else.
func Write(w io.Writer, in Input) error {
	if in.Start.IsZero() && len(in.Events) > 0 {
		in.Start = in.Events[0].Time
	}
	if in.Header == nil {
		for _, l := range in.Trace {
			if _, stamped := parseLine(l); stamped {
				break
			}
			in.Header = append(in.Header, l)
		}
	}
	in.ids = in.namer()
	m := build(&in)
	m.addTraceMarkers(in.Trace)
	if err := page.Execute(w, layout(&in, m)); err != nil {
		return fmt.Errorf("render the picture of %s: %w", in.Title, err)
	}
	return nil
}
