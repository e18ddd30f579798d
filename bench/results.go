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

// roundRatio is the median over rounds of tickwork's figure divided by
// River's in the same round; ok is false unless both ran every round. The
// two runs of a round are back to back, so a slow spell of a shared
// machine that lasts a round weighs on both sides of its ratio, where the
// ratio of the medians may pair a fast round of one with a slow one of the
// other.
func (r *results) roundRatio(figure string) (float64, bool) {
	tw, rv := r.values[figure]["tickwork"], r.values[figure]["River"]
	if len(tw) == 0 || len(tw) != len(rv) {
		return 0, false
	}
	ratios := make([]float64, 0, len(tw))
	for i := range tw {
		if rv[i] == 0 {
			return 0, false
		}
		ratios = append(ratios, tw[i]/rv[i])
	}
	slices.Sort(ratios)
	return ratios[len(ratios)/2], true
}

// print writes the summary table: the median of each system's runs, the
// ratio tickwork/River of those medians and the median of the rounds'
// ratios (roundRatio).
func (r *results) print(w io.Writer) {
	fmt.Fprintf(w, "\n%-72s %12s %12s %16s %14s\n", "figure (median of runs)", "tickwork", "River", "tickwork/River", "round ratios")
	for _, fig := range r.figures {
		tw, okT := r.median(fig, "tickwork")
		rv, okR := r.median(fig, "River")
		ratio, rounds := "-", "-"
		if okT && okR && rv != 0 {
			ratio = fmt.Sprintf("%.2fx", tw/rv)
		}
		if q, ok := r.roundRatio(fig); ok {
			rounds = fmt.Sprintf("%.2fx", q)
		}
		fmt.Fprintf(w, "%-72s %12.1f %12.1f %16s %14s\n", fig, tw, rv, ratio, rounds)
	}
}
