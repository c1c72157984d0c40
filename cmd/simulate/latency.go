package main

import (
	"strings"

	"github.com/idemsim/idemsim/plots"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/explain"
	"github.com/idemsim/idemsim/sim"
)

// latencyChart draws -latency-chart: each acknowledged record's latency
// (from the application's send to the producer's acknowledgement, ms)
// against the time it was sent (s), joined in send order on a continuous
// time axis, with every fault that lasts (a shutdown to its restart, a
// crash, a pause, a partition) marked by a dotted line at its start over
// a band to its end, labelled with its plan line.
func latencyChart(res *scenarios.Result, l *explain.Log) *plots.Chart {
	sec := func(t sim.Time) float64 { return float64(t) / 1e9 }
	sent := map[string]sim.Time{}
	s := plots.Series{Label: "send to acknowledgement"}
	c := &plots.Chart{
		Title:    "scenario " + res.Scenario + ": record latency against time, faults marked",
		XLabel:   "send time (s)",
		YLabel:   "latency (ms)",
		Footnote: res.Reproduce + "\n" + res.Versions,
		YMin0:    true,
	}
	for _, e := range l.Entries {
		switch e.Kind {
		case explain.LogApp:
			sent[e.Text] = e.At
		case explain.LogOutcome:
			id, ok := strings.CutPrefix(e.Text, "ack ")
			at, known := sent[id]
			if ok && known {
				s.X = append(s.X, sec(at))
				s.Y = append(s.Y, float64(e.At-at)/1e6)
				delete(sent, id)
			}
		case explain.LogFault:
			if e.Until > e.At {
				c.Marks = append(c.Marks, plots.XMark{X: sec(e.At), Lo: sec(e.At), Hi: sec(e.Until), Label: e.Text})
			}
		}
	}
	c.Series = []plots.Series{s}
	return c
}
