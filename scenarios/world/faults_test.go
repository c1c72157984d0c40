package world

import (
	"errors"
	"testing"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/sim"
)

// TestDriftGain: a clock drifting by ppm advances R*1e6/(1e6+ppm) in R of
// simulated time, the inverse of the timers' stretch.
func TestDriftGain(t *testing.T) {
	for _, c := range []struct {
		r    sim.Time
		ppm  int32
		want sim.Time
	}{
		{sim.Time(10 * time.Second), 0, 0},
		{sim.Time(10 * time.Second), 1_000_000, sim.Time(-5 * time.Second)},
		{sim.Time(10 * time.Second), -500_000, sim.Time(10 * time.Second)},
		{sim.Time(1_000_001), 1, -1},
		{sim.Time(1_000_200 << 30), 200, -200 << 30}, // no overflow near 2^50 ns
		{-5, 1000, 0},
	} {
		if got := driftGain(c.r, c.ppm); got != c.want {
			t.Errorf("driftGain(%d, %d) = %d, want %d", c.r, c.ppm, got, c.want)
		}
	}
}

func TestPlanErr(t *testing.T) {
	inner := errors.New("line 2: unknown action \"jump\"")
	for _, c := range []struct {
		src  PlanSource
		err  error
		want string
	}{
		{PlanSource{}, inner, `fault plan: line 2: unknown action "jump"`},
		{PlanSource{File: "p.plan"}, inner, `-plan-file p.plan: line 2: unknown action "jump"`},
		{PlanSource{File: "s.yaml", Embedded: true, Line: 6}, inner, `s.yaml:7: plan: unknown action "jump"`},
		{PlanSource{File: "s.yaml", Embedded: true, Line: 6}, errors.New("end before the last action"), `s.yaml:6: plan: end before the last action`},
	} {
		if got := planErr(c.src, c.err).Error(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.src, got, c.want)
		}
	}
	if (PlanSource{File: "s.yaml", Embedded: true}).PlanFile() != "" || (PlanSource{File: "p"}).PlanFile() != "p" {
		t.Error("PlanFile")
	}
}

// The World carries out a group member's faults (world_member.go).
var _ faults.MemberTarget = actuator{}
