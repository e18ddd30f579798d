package main

import (
	"fmt"
	"io"
	"slices"
)

// results holds every run's figure by figure and system, in the order
// figures, and systems, were first measured.
type results struct {
	figures []string
	systems []string
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
	if !slices.Contains(r.systems, system) {
		r.systems = append(r.systems, system)
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
// other's in the same round; ok is false unless both ran every round. The
// runs of a round are back to back, so a slow spell of a shared machine
// that lasts a round weighs on both sides of its ratio, where the ratio
// of the medians may pair a fast round of one with a slow one of the
// other.
func (r *results) roundRatio(figure, other string) (float64, bool) {
	tw, ov := r.values[figure]["tickwork"], r.values[figure][other]
	if len(tw) == 0 || len(tw) != len(ov) {
		return 0, false
	}
	ratios := make([]float64, 0, len(tw))
	for i := range tw {
		if ov[i] == 0 {
			return 0, false
		}
		ratios = append(ratios, tw[i]/ov[i])
	}
	slices.Sort(ratios)
	return ratios[len(ratios)/2], true
}

// print writes the summary table: the median of each system's runs, then
// for each other system the ratio tickwork/system of those medians and
// the median of the rounds' ratios (roundRatio).
func (r *results) print(w io.Writer) {
	var others []string
	fmt.Fprintf(w, "\n%-68s", "figure (median of runs)")
	for _, sys := range r.systems {
		fmt.Fprintf(w, " %18s", sys)
		if sys != "tickwork" {
			others = append(others, sys)
		}
	}
	for _, o := range others {
		fmt.Fprintf(w, " %28s %8s", "tickwork/"+o, "rounds")
	}
	fmt.Fprintln(w)
	for _, fig := range r.figures {
		fmt.Fprintf(w, "%-68s", fig)
		for _, sys := range r.systems {
			if v, ok := r.median(fig, sys); ok {
				fmt.Fprintf(w, " %18.1f", v)
			} else {
				fmt.Fprintf(w, " %18s", "-")
			}
		}
		tw, okT := r.median(fig, "tickwork")
		for _, o := range others {
			ratio, rounds := "-", "-"
			if ov, ok := r.median(fig, o); okT && ok && ov != 0 {
				ratio = fmt.Sprintf("%.2fx", tw/ov)
			}
			if q, ok := r.roundRatio(fig, o); ok {
				rounds = fmt.Sprintf("%.2fx", q)
			}
			fmt.Fprintf(w, " %28s %8s", ratio, rounds)
		}
		fmt.Fprintln(w)
	}
}
