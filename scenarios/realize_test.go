package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// TestRealizedReplay: replaying a run's realized plan with fault.realized
// reproduces the run: the same violations at the same times, the same
// counts, although the losses are now planned drops and rejects.
func TestRealizedReplay(t *testing.T) {
	cases := []struct {
		scenario string
		sets     []params.KV
	}{
		{"ackloss", kv("enable.idempotence", "false")},
		{"ackloss", kv("net.request_loss", "0.05", "fault.count", "3")},
		{"reorder", kv("enable.idempotence", "false")},
		{"ackloss", kv("net.mode", "datagram", "net.duplicate", "0.05", "net.reorder", "0.1", "net.request_loss", "0.05", "broker.transient_error", "0.05")},
		// Losses between servers (markers, verifications) become drops on
		// server links.
		{"txnlate", kv("net.server_loss", "0.2", "net.response_loss", "0.02")},
	}
	realized := 0
	for _, c := range cases {
		sc, err := Lookup(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(6) {
			r1 := run(t, Spec{Scenario: sc, Seed: seed, Sets: c.sets, Realize: true})
			sets := world.RealizedSets(r1, c.sets)
			if !slices.Contains(sets, params.KV{Key: "fault.realized", Value: "true"}) {
				t.Fatalf("%s: RealizedSets = %v", c.scenario, sets)
			}
			r2 := run(t, Spec{Scenario: sc, Seed: seed, Sets: sets, PlanText: r1.Realized})
			if r1.Realized != r1.Plan {
				realized++
			}
			if !slices.Equal(r1.Violations, r2.Violations) || r1.Acked != r2.Acked || r1.Appended != r2.Appended ||
				r1.Duplicates != r2.Duplicates || r1.Net != r2.Net || r1.SimTimeNs != r2.SimTimeNs {
				t.Errorf("%s %v seed %d: replay differs\nplan:\n%s\nfirst:  %+v %+v\nreplay: %+v %+v", c.scenario, c.sets, seed, r1.Realized,
					r1.Violations, r1.Net, r2.Violations, r2.Net)
			}
			// Line for line, the traces differ only in the plan's own lines.
			strip := func(lines []string) []string {
				var out []string
				for _, l := range lines {
					if strings.Contains(l, " fault drop ") || strings.Contains(l, " fault reject ") || strings.Contains(l, " sim run ") {
						continue
					}
					l = strings.Replace(l, "(plan: reject)", "(transient: in-sync replicas below min.insync.replicas)", 1)
					l, _, _ = strings.Cut(l, " (plan: ")
					out = append(out, l)
				}
				return out
			}
			if a, b := strip(r1.Trace), strip(r2.Trace); !slices.Equal(a, b) {
				for i := range min(len(a), len(b)) {
					if a[i] != b[i] {
						t.Errorf("%s seed %d: traces part at line %d:\n%s\n%s", c.scenario, seed, i, a[i], b[i])
						break
					}
				}
			}
		}
	}
	if realized < 10 {
		t.Errorf("only %d runs drew random losses", realized)
	}
}

// TestRejectErrors: the errors a reject may name are the model's
// retriable errors.
func TestRejectErrors(t *testing.T) {
	for _, name := range faults.RejectErrors {
		if c, ok := model.ParseErrCode(name); !ok || !c.Retriable() {
			t.Errorf("%s: parses %v, retriable %v", name, ok, c.Retriable())
		}
	}
}

// TestZeroTimeDropArmsFirst: a drop armed at 0s applies to the very first
// request, which an instance sends as it starts at 0s: plan actions run
// before the starts of the same time, so a realized plan that records the
// loss of a run's first message replays it.
func TestZeroTimeDropArmsFirst(t *testing.T) {
	sc, err := Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, Spec{Scenario: sc, Seed: 1, KeepTrace: true, PlanText: "0s drop request 1 p1>c1\nend 10s\n"})
	for _, l := range r.Trace {
		if strings.Contains(l, "p1 send InitProducerId#1 -> c1 DROPPED") {
			return
		}
	}
	t.Fatalf("the first InitProducerId was not dropped:\n%s", strings.Join(r.Trace[:min(len(r.Trace), 12)], "\n"))
}
