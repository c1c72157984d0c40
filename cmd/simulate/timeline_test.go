package main

import (
	"fmt"
	"slices"
	"testing"

	"github.com/idemsim/idemsim/plots"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/explain"
	"github.com/idemsim/idemsim/scenarios/params"
)

// TestTimelineOfRuns draws runs whose timelines used to go wrong: zombie
// seed 2 with six faults (fault names on one lane overprinted each other;
// a lost p2→c1 message), zombie seed 3 with six faults (a pause of a
// crashed p1 that no resume ended stretched the axis over 30 s of idle
// run) and isolated seed 1 (eight violations in a row). Their labels do
// not overlap and all find room; the axis ends within 3% of the events'
// span after the last event; a lost message keeps its sender's and
// receiver's lanes.
func TestTimelineOfRuns(t *testing.T) {
	for _, c := range []struct {
		scenario string
		seed     uint64
		faults   string
	}{{"zombie", 5, "6"}, {"zombie", 3, "6"}, {"isolated", 1, ""}} {
		sc, _ := scenarios.Lookup(c.scenario)
		spec := scenarios.Spec{Scenario: sc, Seed: c.seed}
		if c.faults != "" {
			spec.Sets = []params.KV{{Key: "fault.count", Value: c.faults}}
		}
		rec := explain.Record(&spec)
		res, err := scenarios.Run(spec)
		if err != nil {
			t.Fatal(err)
		}
		l := rec.Log()
		tl := timelineOf(res, l)
		name := fmt.Sprintf("%s seed %d", c.scenario, c.seed)

		lay, err := plots.LayoutTimeline(tl)
		if err != nil {
			t.Fatal(err)
		}
		if len(lay.Left) > 0 || len(lay.Labels) == 0 {
			t.Errorf("%s: %d labels, left out %q", name, len(lay.Labels), lay.Left)
		}
		for i, a := range lay.Labels {
			for _, b := range lay.Labels[:i] {
				if a.Box.Min.X < b.Box.Max.X && b.Box.Min.X < a.Box.Max.X && a.Box.Min.Y < b.Box.Max.Y && b.Box.Min.Y < a.Box.Max.Y {
					t.Errorf("%s: labels %q and %q overlap", name, a.Text, b.Text)
				}
			}
		}

		first, last := float64(tl.End), 0.0
		see := func(at int64) { first, last = min(first, float64(at)/1e9), max(last, float64(at)/1e9) }
		for _, a := range tl.Arrows {
			see(int64(a.Sent))
			see(int64(a.At))
		}
		for _, iv := range tl.Intervals {
			see(int64(iv.From))
			if iv.To < tl.End {
				see(int64(iv.To))
			}
		}
		for _, m := range tl.Marks {
			if m.At < tl.End {
				see(int64(m.At))
			}
		}
		p, err := plots.TimelinePlot(tl)
		if err != nil {
			t.Fatal(err)
		}
		if p.X.Max < last || p.X.Max > last+0.031*(last-first) {
			t.Errorf("%s: axis ends at %.2f s, last event at %.2f s, run ends at %.2f s", name, p.X.Max, last, float64(tl.End)/1e9)
		}

		// Every lost message is an arrow between its own lanes.
		lanes := slices.Concat(l.Apps, l.Nodes)
		var lost []explain.LogEvent
		for _, e := range l.Entries {
			if e.Kind == explain.LogSend && e.Fate != "" {
				lost = append(lost, e)
			}
		}
		var drawn []plots.Arrow
		for _, a := range tl.Arrows {
			if a.Lost {
				drawn = append(drawn, a)
			}
		}
		if len(drawn) != len(lost) {
			t.Fatalf("%s: %d lost messages, %d drawn lost", name, len(lost), len(drawn))
		}
		for i, e := range lost {
			if a := drawn[i]; lanes[a.From] != e.From || lanes[a.To] != e.To || a.Sent != e.At || a.At != e.Arrive {
				t.Errorf("%s: lost %s→%s at %v drawn %s→%s at %v..%v", name, e.From, e.To, e.At, lanes[a.From], lanes[a.To], a.Sent, a.At)
			}
		}
		if c.seed == 5 && !slices.ContainsFunc(drawn, func(a plots.Arrow) bool { return lanes[a.From] == "p2" && lanes[a.To] == "c1" }) {
			t.Errorf("%s: no lost p2→c1 message", name)
		}
	}
}
