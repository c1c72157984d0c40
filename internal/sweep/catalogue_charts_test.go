package sweep

import (
	"context"
	"math"
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
