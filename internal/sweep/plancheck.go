package sweep

import (
	"fmt"

	"github.com/idemsim/idemsim/scenarios"
)

// CheckPlan checks, when every run replays one plan (PlanText), that the
// plan applies at every point in every mode (a plan naming b2 does not
// apply at a point with brokers=1), before anything runs.
func (c *Config) CheckPlan() error {
	if c.PlanText == "" {
		return nil
	}
	for p := range numPoints(c.Axes) {
		for _, on := range c.modes() {
			if _, err := scenarios.PlanText(c.spec(c.Base, p, on)); err != nil {
				where := ""
				for _, kv := range PointSets(c.Axes, p) {
					where += kv.Key + "=" + kv.Value + " "
				}
				return fmt.Errorf("%sidempotence=%s: %v", where, modeName(on), err)
			}
		}
	}
	return nil
}
