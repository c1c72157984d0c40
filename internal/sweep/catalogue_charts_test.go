package sweep

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
)

// TestCatalogueCharts: for a sweep of every catalogue scenario over a
// categorical parameter (client.policy) and a numeric one (records), no
// chart draws a categorical axis as a line and no interval of any chart
// has zero width. It reads the chart data, not the pictures.
func TestCatalogueCharts(t *testing.T) {
	for _, name := range scenarios.Names() {
		sc, err := scenarios.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range []string{"client.policy=java,franz-go", "records=4,8"} {
			cfg := Config{Scenario: sc, Base: 1, Runs: 3, Parallel: 2, Axes: []Axis{axisOf(t, sc, spec)}}
			if err := cfg.Validate(); err != nil {
				t.Logf("%s -vary %s: not swept: %v", name, spec, err)
				continue
			}
			st, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatalf("%s -vary %s: %v", name, spec, err)
			}
			categorical := cfg.Axes[0].categorical()
			for _, c := range st.Summarize().Charts() {
				if c.Name == "latency_cdf" {
					continue
				}
				if categorical != (c.Chart.Categories != nil) {
					t.Errorf("%s -vary %s: chart %s has categories %v", name, spec, c.Name, c.Chart.Categories)
				}
				for _, ser := range c.Chart.Series {
					for i, y := range ser.Y {
						if math.IsNaN(y) || ser.Lo == nil {
							continue
						}
						if !(ser.Hi[i] > ser.Lo[i]) {
							t.Errorf("%s -vary %s: chart %s, %s, point %d: interval [%v, %v] has no width", name, spec, c.Name, ser.Label, i, ser.Lo[i], ser.Hi[i])
						}
					}
				}
			}
		}
	}
}

// TestLongCategoriesAbbreviated: a text axis whose values do not fit
// under a tick is labelled v1, v2, ..., and the footnote spells each
// value out whole, on lines that fit the chart.
func TestLongCategoriesAbbreviated(t *testing.T) {
	sc, err := scenarios.Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	a := axisOf(t, sc, "net.link.latency=p1>b1 constant base=20ms; b1>p1 constant base=5ms,p1>b1 constant base=1ms")
	cfg := Config{Scenario: sc, Base: 1, Runs: 2, Modes: []bool{false}, Axes: []Axis{a}}
	st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := st.Summarize().Charts()[0].Chart
	if strings.Join(c.Categories, ",") != "v1,v2" {
		t.Errorf("categories %q, want v1, v2", c.Categories)
	}
	if !strings.Contains(c.Footnote, "net.link.latency: v1 = p1>b1 constant base=20ms; b1>p1 constant base=5ms | v2 = p1>b1 constant base=1ms") {
		t.Errorf("footnote does not spell the values out:\n%s", c.Footnote)
	}
	for _, l := range strings.Split(c.Footnote, "\n") {
		if len(l) > 120 {
			t.Errorf("footnote line of %d characters: %q", len(l), l)
		}
	}
}
