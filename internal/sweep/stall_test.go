package sweep

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
)

// TestOffsetStallMetric: a sweep of the unstable scenario over
// transaction.timeout.ms reports each point's mean offset_fetch_stall_ms
// with an interval that is not zero wide, rising with the timeout, and
// draws it; a merge of shards adds the same moments; a sweep in which no
// member stalls (ackloss) has neither the metric nor its chart.
func TestOffsetStallMetric(t *testing.T) {
	sc, err := scenarios.Lookup("unstable")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Scenario: sc, Base: 1, Runs: 6, Modes: []bool{true}, Axes: []Axis{axisOf(t, sc, "transaction.timeout.ms=20000,40000")}}
	st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := st.Summarize()
	last := 0.0
	for _, pt := range s.Points {
		m := pt.Modes["on"].OffsetFetchStallMs
		if m == nil || m.Mean == nil || m.Lo == nil || m.Hi == nil || !(*m.Lo < *m.Mean && *m.Mean < *m.Hi) || *m.Mean <= last {
			t.Fatalf("%v: stall %+v, want a mean above %.0f ms inside an interval of some width", pt.Values, m, last)
		}
		last = *m.Mean
	}
	var names []string
	for _, c := range s.Charts() {
		names = append(names, c.Name)
	}
	if !slices.Contains(names, "offset_fetch_stall") {
		t.Errorf("charts %v, want offset_fetch_stall", names)
	}

	// Two shards merged: the same summary.
	tmp := t.TempDir()
	var dirs []string
	for i := range 2 {
		c := cfg
		c.Shard.Index, c.Shard.Count = i, 2
		dir := filepath.Join(tmp, string(rune('a'+i)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(dir, RunsFile))
		if err != nil {
			t.Fatal(err)
		}
		c.CSV = f
		sh, err := Run(context.Background(), c)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := sh.Summarize().WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	merged, err := Merge(filepath.Join(tmp, "merged"), "", dirs)
	if err != nil {
		t.Fatal(err)
	}
	for i, pt := range merged.Points {
		a, b := pt.Modes["on"].OffsetFetchStallMs, s.Points[i].Modes["on"].OffsetFetchStallMs
		if a == nil || *a.Mean != *b.Mean || *a.Lo != *b.Lo {
			t.Errorf("%v: merged stall %+v, unsharded %+v", pt.Values, a, b)
		}
	}

	cfg = baseConfig(t)
	cfg.Runs = 3
	st, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s = st.Summarize()
	for _, c := range s.Charts() {
		if c.Name == "offset_fetch_stall" {
			t.Errorf("ackloss sweep draws offset_fetch_stall")
		}
	}
	if s.Points[0].Modes["on"].OffsetFetchStallMs != nil {
		t.Errorf("ackloss sweep reports a stall")
	}
}
