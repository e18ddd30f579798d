package main

import (
	"fmt"
	"io"
	"slices"
)

// results holds every run's figure by figure and system, in the order
// figures were first measured.
type results struct {
	figures []string
	values  map[string]map[string][]float64
}

func (r *results) add(figure, system string, v float64) {
	if r.values == nil {
		r.values = map[string]map[string][]float64{}
	}
	if r.values[figure] == nil {
		r.values[figure] = map[string][]float64{}
		r.figures = append(r.figures, figure)
	}
	r.values[figure][system] = append(r.values[figure][system], v)
}

// median of one figure for one system; ok is false when it has no runs.
func (r *results) median(figure, system string) (float64, bool) {
	vs := slices.Clone(r.values[figure][system])
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	return vs[len(vs)/2], true
}

// print writes the summary table: the median of each system's runs and
// the ratio tickwork/River.
func (r *results) print(w io.Writer) {
	fmt.Fprintf(w, "\n%-72s %12s %12s %16s\n", "figure (median of runs)", "tickwork", "River", "tickwork/River")
	for _, fig := range r.figures {
		tw, okT := r.median(fig, "tickwork")
		rv, okR := r.median(fig, "River")
		ratio := "-"
		if okT && okR && rv != 0 {
			ratio = fmt.Sprintf("%.2fx", tw/rv)
		}
		fmt.Fprintf(w, "%-72s %12.1f %12.1f %16s\n", fig, tw, rv, ratio)
	}
}
