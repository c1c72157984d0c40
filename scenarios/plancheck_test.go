package scenarios

import (
	"flag"
	"strconv"
	"testing"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/world"
)

var long = flag.Bool("long", false, "check many more generated plans (TestGeneratedPlansPassChecks)")

// TestGeneratedPlansPassChecks: every plan the simulator generates, for
// every scenario (its own faults with fault.count generated ones around
// them), fault kind set and count, passes the plan checks it would be
// refused by as a -plan-file (faults.Plan.Check and the run's time
// limit), and reads back as the same plan. Scenario plans merged with
// generated noise used to pause or crash a process the noise had
// crashed (zombie, seed 0, fault.count=6).
func TestGeneratedPlansPassChecks(t *testing.T) {
	seeds := uint64(25)
	if *long {
		seeds = 300
	}
	kinds := []string{"all", "all,stall"}
	counts := []string{"1", "3", "6", "10"}
	n := 0
	for _, sc := range All() {
		for seed := range seeds {
			for _, k := range kinds {
				for _, c := range counts {
					spec := Spec{Scenario: sc, Seed: seed, Sets: kv("fault.count", c, "fault.kinds", k)}
					text, err := PlanText(spec)
					if err != nil {
						t.Fatalf("%s seed %d fault.count=%s fault.kinds=%s: generated plan refused: %v", sc.Name, seed, c, k, err)
					}
					p, err := faults.Parse(text)
					if err != nil {
						t.Fatalf("%s seed %d: %v\n%s", sc.Name, seed, err, text)
					}
					if err := p.CheckSequence(); err != nil {
						t.Fatalf("%s seed %d fault.count=%s: %v\n%s", sc.Name, seed, c, err, text)
					}
					// Replayed as a plan file: Parse, Check and the limit.
					spec.PlanText, spec.PlanSource = faults.FileText(text), world.PlanSource{File: "p.txt"}
					back, err := PlanText(spec)
					if err != nil {
						t.Fatalf("%s seed %d fault.count=%s fault.kinds=%s: replay refused: %v\n%s", sc.Name, seed, c, k, err, text)
					}
					if back != text {
						t.Fatalf("%s seed %d: replayed plan differs:\n%s\nwant\n%s", sc.Name, seed, back, text)
					}
					n++
				}
			}
		}
	}
	t.Logf("%d generated plans checked", n)
}

// TestGeneratedPlansBigCounts: large fault counts on the generic
// generator (ackloss) and on a replicated world, where faults crowd each
// other.
func TestGeneratedPlansBigCounts(t *testing.T) {
	for _, name := range []string{"ackloss", "failover"} {
		sc, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(20) {
			for _, c := range []int{30, 200} {
				spec := Spec{Scenario: sc, Seed: seed, Sets: kv("fault.count", strconv.Itoa(c), "fault.kinds", "all,stall")}
				text, err := PlanText(spec)
				if err != nil {
					t.Fatalf("%s seed %d fault.count=%d: %v", name, seed, c, err)
				}
				spec.PlanText = text
				if _, err := PlanText(spec); err != nil {
					t.Fatalf("%s seed %d fault.count=%d: replay refused: %v\n%s", name, seed, c, err, text)
				}
			}
		}
	}
}

// TestScenarioPlansFewRecords: a scenario's own plan passes the checks
// with a workload too short for it: epochx's and restart's restarts
// piled up in the same send interval with records=4 (a crash of the
// crashed producer, out of time order), which TestCatalogueCharts's
// "-vary records=4,8" ran into.
func TestScenarioPlansFewRecords(t *testing.T) {
	for _, name := range []string{"epochx", "restart"} {
		sc, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, records := range []string{"1", "2", "4", "8"} {
			for seed := range uint64(10) {
				for _, c := range []string{"0", "6"} {
					if _, err := PlanText(Spec{Scenario: sc, Seed: seed, Sets: kv("records", records, "fault.count", c)}); err != nil {
						t.Fatalf("%s records=%s seed %d fault.count=%s: %v", name, records, seed, c, err)
					}
				}
			}
		}
	}
}
