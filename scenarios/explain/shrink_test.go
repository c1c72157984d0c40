package explain

import (
	"testing"

	"github.com/idemsim/idemsim/faults"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// TestShrinkZombie: zombie without idempotence, with six generic noise
// faults, breaks INV-DUP because of v1's pause; the shrink removes the
// noise and keeps the one pause of p1.
func TestShrinkZombie(t *testing.T) {
	sc, _ := scenarios.Lookup("zombie")
	// At least once, the new instance sends again what the paused one
	// left unresolved, and the pause hides a commit that landed.
	spec := scenarios.Spec{Scenario: sc, Seed: 539, Sets: kv("app.mode", "at-least-once", "fault.count", "2")}
	s, err := Shrink(spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s after %d runs, %d actions before:\n%s", s.Invariant, s.Runs, s.Before, s.Plan.String())
	if p, ok := only[faults.Pause](s.Plan); s.Invariant != "INV-DUP" || !ok || p.Node != "p1" {
		t.Fatalf("got %s:\n%s", s.Invariant, s.Plan.String())
	}
	s2, err := Shrink(spec, 0)
	if err != nil || !s2.Plan.Equal(&s.Plan) || s2.Runs != s.Runs {
		t.Fatalf("second shrink differs: %v\n%s", err, s2.Plan.String())
	}
}

// TestShrinkAckloss: ackloss without idempotence duplicates a record
// because one acknowledgement was lost. The random losses, realized as
// planned drops, shrink to that one lost response, and the replay with
// fault.realized=true still duplicates.
func TestShrinkAckloss(t *testing.T) {
	sc, _ := scenarios.Lookup("ackloss")
	found := 0
	for seed := range uint64(20) {
		spec := scenarios.Spec{Scenario: sc, Seed: seed, Sets: kv("enable.idempotence", "false")}
		s, err := Shrink(spec, 200)
		if err == ErrNoViolation {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		found++
		if d, ok := only[faults.Drop](s.Plan); s.Invariant != "INV-DUP" || !ok || d.Dir != simnet.Response || d.To != "b1" {
			t.Errorf("seed %d: %s after %d runs:\n%s", seed, s.Invariant, s.Runs, s.Plan.String())
		}
		if s.Sets[len(s.Sets)-1] != (params.KV{Key: "fault.realized", Value: "true"}) || !s.Result.HasViolations() {
			t.Errorf("seed %d: sets %v", seed, s.Sets)
		}
		if found == 3 {
			break
		}
	}
	if found == 0 {
		t.Fatal("no seed failed")
	}
}

// only returns the plan's one action, if it has one action, of type A.
func only[A faults.Action](p faults.Plan) (A, bool) {
	var a A
	if len(p.Actions) != 1 {
		return a, false
	}
	a, ok := p.Actions[0].Action.(A)
	return a, ok
}
