package picture

import (
	"strconv"
	"strings"
	"time"
)

// traceLine is one stamped line of the trace: seconds, actor, text.
type traceLine struct {
	at    float64
	actor string
	text  string
}

// parseLine splits "   12.000100 w1 STALL for 3s"; ok is false for the
// unstamped header lines.
func parseLine(s string) (traceLine, bool) {
	fields := strings.Fields(s)
	if len(fields) < 3 {
		return traceLine{}, false
	}
	at, err := strconv.ParseFloat(fields[0], 64)
	if err != nil || !strings.Contains(fields[0], ".") {
		return traceLine{}, false
	}
	rest := strings.TrimSpace(s)
	rest = strings.TrimSpace(rest[len(fields[0]):])
	rest = strings.TrimSpace(rest[len(fields[1]):])
	return traceLine{at: at, actor: fields[1], text: rest}, true
}

// addTraceMarkers adds the faults only the trace records: stalls (as spans),
// database outages, clock jumps and store errors, the ones after a commit
// (the caller cannot tell whether it applied) shown as ambiguous commits.
// Trace times are seconds since the simulator's epoch, which is in.Start.
func (m *model) addTraceMarkers(lines []string) {
	for _, s := range lines {
		l, ok := parseLine(s)
		if !ok {
			continue
		}
		m.end = max(m.end, l.at)
		switch {
		case strings.HasPrefix(l.text, "STALL for "):
			d, err := time.ParseDuration(strings.TrimPrefix(l.text, "STALL for "))
			if err != nil {
				continue
			}
			m.markers = append(m.markers, marker{lane: m.laneOf(l.actor, l.at), at: l.at, to: l.at + d.Seconds(), kind: "stall", text: l.actor + " stalls for " + d.String()})
		case l.actor == "db" && strings.HasPrefix(l.text, "outage for "):
			d, err := time.ParseDuration(strings.TrimPrefix(l.text, "outage for "))
			if err == nil {
				m.outages = append(m.outages, span{l.at, l.at + d.Seconds()})
			}
		case strings.HasPrefix(l.text, "clock jumps "):
			m.mark(m.laneOf(l.actor, l.at), l.at, "jump", l.actor+" "+l.text)
		case l.text == "store error after the commit":
			m.mark(m.laneOf(l.actor, l.at), l.at, "ambiguous", "ambiguous commit: applied, but "+l.actor+" saw an error")
		case strings.HasPrefix(l.text, "store error "):
			m.mark(m.laneOf(l.actor, l.at), l.at, "store-error", l.actor+" "+l.text)
		}
	}
}
