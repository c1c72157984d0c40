package explain

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios"
)

// fakeShrinker is a shrinker whose runs fail (break "INV-X") iff fails
// says so of the plan; it records every plan it was asked to run.
func fakeShrinker(t *testing.T, fails func(text string) bool) (*shrinker, *[]string) {
	var ran []string
	s := &shrinker{budget: 1000, inv: "INV-X", run: func(spec scenarios.Spec) (*scenarios.Result, error) {
		ran = append(ran, spec.PlanText)
		p, err := faults.Parse(spec.PlanText)
		if err != nil {
			t.Fatalf("candidate does not parse: %v\n%s", err, spec.PlanText)
		}
		if err := p.CheckSequence(); err != nil {
			t.Errorf("candidate refused by the plan checks: %v\n%s", err, spec.PlanText)
		}
		r := &scenarios.Result{}
		if fails(spec.PlanText) {
			r.Violations = []check.Violation{{Invariant: "INV-X"}}
		}
		return r, nil
	}}
	return s, &ran
}

func itemsOf(t *testing.T, text string) []item {
	t.Helper()
	p, err := faults.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	var items []item
	for _, a := range p.Actions {
		items = append(items, item{a: a})
	}
	return items
}

func has(text string, lines ...string) bool {
	for _, l := range lines {
		if !strings.Contains(text, l) {
			return false
		}
	}
	return true
}

// TestShrinkCandidatesValid: removing a crash removes its restart and
// removing a partition its heal, so no candidate restarts a running
// process or heals what is not cut; a restart alone may go.
func TestShrinkCandidatesValid(t *testing.T) {
	const plan = "1s crash b1\n2s pause p1 1s\n3s partition p1 | b1 c1\n4s heal p1 | b1 c1\n6s restart b1\n7s crash p1\n8s restart p1\n"
	for _, keep := range [][]string{
		{"pause p1 1s"},
		{"heal p1"},
		{"restart b1"},
		{"restart p1"},
		{"pause p1", "restart p1"},
	} {
		s, ran := fakeShrinker(t, func(text string) bool { return has(text, keep...) })
		got := s.plan(s.ddmin(itemsOf(t, plan), func(item) bool { return true }))
		if !has(got.String(), keep...) || got.CheckSequence() != nil {
			t.Errorf("keep %q: shrunk to\n%s", keep, got.String())
		}
		if len(*ran) == 0 {
			t.Errorf("keep %q: nothing ran", keep)
		}
	}
	// Only the crash matters: its restart goes alone, the crash stays.
	s, _ := fakeShrinker(t, func(text string) bool { return has(text, "crash b1") })
	if got := s.plan(s.ddmin(itemsOf(t, plan), func(item) bool { return true })); got.String() != "1s crash b1\n" {
		t.Errorf("crash b1 alone: shrunk to\n%s", got.String())
	}
}

// TestShrinkWeakenSorted: a restart moved earlier than a later action
// runs as a plan in time order (before, the candidate "1s crash b1, 2s
// pause p1, 1s restart b1" was refused and the restart stayed late).
func TestShrinkWeakenSorted(t *testing.T) {
	const plan = "1s crash b1\n2s pause p1 1s\n6s restart b1\n"
	s, ran := fakeShrinker(t, func(text string) bool { return has(text, "crash b1", "pause p1", "restart b1") })
	got := s.plan(s.weaken(itemsOf(t, plan)))
	if want := "1s crash b1\n1s restart b1\n2s pause p1 0s\n"; got.String() != want {
		t.Errorf("weakened to\n%s\nwant\n%s", got.String(), want)
	}
	for _, text := range *ran {
		p, _ := faults.Parse(text)
		if !slices.IsSortedFunc(p.Actions, func(a, b faults.Timed) int { return cmpDur(a.At, b.At) }) {
			t.Errorf("candidate out of time order:\n%s", text)
		}
	}
}

// TestShrunkPlansReplay: plans shrunk from runs with crashes, pauses and
// partitions pass the plan checks when fed back as a plan file.
func TestShrunkPlansReplay(t *testing.T) {
	sc, _ := scenarios.Lookup("ackloss")
	shrunk := 0
	for seed := range uint64(12) {
		spec := scenarios.Spec{Scenario: sc, Seed: seed, Sets: kv("enable.idempotence", "false", "fault.count", "10", "fault.kinds", "crash,partition,pause,oneway,stall", "net.response_loss", "0")}
		s, err := Shrink(spec, 120)
		if err == ErrNoViolation {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		shrunk++
		text := faults.FileText(s.Plan.String())
		p, err := faults.Parse(text)
		if err != nil || p.CheckSequence() != nil {
			t.Fatalf("seed %d: %v %v\n%s", seed, err, p.CheckSequence(), text)
		}
		replay := spec
		replay.Sets, replay.PlanText = s.Sets, text
		if _, err := scenarios.PlanText(replay); err != nil {
			t.Errorf("seed %d: the shrunk plan is refused: %v\n%s", seed, err, text)
		}
	}
	if shrunk == 0 {
		t.Fatal("no seed failed")
	}
}
