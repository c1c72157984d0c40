package sweep

import (
	"fmt"
	"io"

	"github.com/idemsim/idemsim/scenarios/params"
)

// writeSources prints, under the table's title, what the runs came from
// besides the scenario: the scenario file, the plan every seed replays
// and the historical defects turned on (-bug), each on its own line.
func (s *Summary) writeSources(w io.Writer) {
	if s.ScenarioFile != "" {
		fmt.Fprintf(w, "scenario file: %s\n", s.ScenarioFile)
	}
	if s.PlanFile != "" {
		fmt.Fprintf(w, "fault plan (every seed): %s\n", s.PlanFile)
	}
	for _, id := range s.Bugs {
		title := ""
		if b, err := params.LookupBug(id); err == nil {
			title = b.Title
		}
		fmt.Fprintf(w, "historical defect -bug %s: %s\n", id, title)
	}
}
