package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/scenarios/world"
)

// TestBudgetWording: a run stopped by the simulator's event budget says
// so, naming the budget and its flag, in the report's counts and in the
// LIVE-PROD verdict (of the report and of -json), instead of claiming
// that the run did not settle (issue #30); a drained run prints no stop
// line.
func TestBudgetWording(t *testing.T) {
	args := []string{"-seed", "4", "-scenario", "ackloss", "-idempotence=false", "-max-events", "40"}
	_, out, _ := runCLI(args...)
	if !strings.Contains(out, "\n  stop                    event-limit: the simulator's event budget ran out before the run finished (-max-events, "+
		strconv.Itoa(world.DefaultMaxEvents)+" events by default: raise it to let the run go on)\n") {
		t.Errorf("report has no event budget line:\n%s", out)
	}
	if strings.Contains(out, "did not settle") || !strings.Contains(out, "(event-limit): the simulator's event budget ran out") {
		t.Errorf("LIVE-PROD does not name the event budget:\n%s", out)
	}
	_, out, _ = runCLI(append(args, "-json")...)
	var r struct {
		Stop       string `json:"stop"`
		Violations []struct {
			Invariant string `json:"invariant"`
			Detail    string `json:"detail"`
		} `json:"violations"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	named := false
	for _, v := range r.Violations {
		named = named || v.Invariant == "LIVE-PROD" && strings.Contains(v.Detail, "(event-limit): "+check.StopDetail("event-limit"))
	}
	if r.Stop != "event-limit" || !named {
		t.Errorf("-json stop %q, violations %+v: no LIVE-PROD naming the event budget", r.Stop, r.Violations)
	}
	if d := check.StopDetail("state-limit"); !strings.Contains(d, strconv.Itoa(world.DefaultMaxState)+" units") {
		t.Errorf("state budget %q does not name world.DefaultMaxState", d)
	}
	_, out, _ = runCLI("-seed", "4", "-scenario", "ackloss")
	if strings.Contains(out, "\n  stop ") {
		t.Errorf("a drained run's report has a stop line:\n%s", out)
	}
}
