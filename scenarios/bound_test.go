package scenarios

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// TestStateBound: a valid configuration whose state grows without bound
// (every response lost, requests that never time out: the producer's
// 24.8-day request timers pile up in the queue) stops at the state bound
// with its own stop reason, a LIVE-PROD verdict and a reproduce line,
// instead of growing to the event cap (16.9 GB before this bound).
func TestStateBound(t *testing.T) {
	sc, err := Lookup("seqreuse")
	if err != nil {
		t.Fatal(err)
	}
	sets := []params.KV{{Key: "net.response_loss", Value: "1"}, {Key: "request.timeout.ms", Value: "2147483647"}}
	r := mustRun(t, Spec{Scenario: sc, Seed: 1, Sets: sets, MaxState: 2_000})
	if r.Stop != "state-limit" {
		t.Fatalf("stop = %s after %d events, want state-limit", r.Stop, r.Events)
	}
	if r.Events > 20_000 {
		t.Errorf("%d events before stopping at a bound of 2,000 units: the bound is not checked often enough", r.Events)
	}
	found := false
	for _, v := range r.Violations {
		found = found || v.Invariant == "LIVE-PROD" && strings.Contains(v.Detail, "(state-limit)")
	}
	if !found {
		t.Errorf("no LIVE-PROD violation names the state limit: %v", r.Violations)
	}
	if !strings.Contains(r.Reproduce, "-scenario seqreuse") || !strings.Contains(r.Reproduce, "request.timeout.ms=2147483647") {
		t.Errorf("reproduce line %q", r.Reproduce)
	}
	// Same spec, same result: the bound counts simulated state only.
	r2 := mustRun(t, Spec{Scenario: sc, Seed: 1, Sets: sets, MaxState: 2_000})
	if r2.TraceHash != r.TraceHash || r2.Events != r.Events {
		t.Errorf("bounded runs differ: %s/%d vs %s/%d", r.TraceHash, r.Events, r2.TraceHash, r2.Events)
	}
}

// TestRealizedOnlyWhenAsked: random losses are recorded as plan actions
// only for a spec that asks for the realized plan.
func TestRealizedOnlyWhenAsked(t *testing.T) {
	sc, err := Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, Spec{Scenario: sc, Seed: 3})
	if r.Realized != "" {
		t.Errorf("realized plan recorded without Spec.Realize: %q", r.Realized)
	}
	r = mustRun(t, Spec{Scenario: sc, Seed: 3, Realize: true})
	if !strings.Contains(r.Realized, "drop response") {
		t.Errorf("realized plan %q has no dropped response (ackloss seed 3 loses one)", r.Realized)
	}
}

// TestStateBoundCountsRecords: the records a run sent and the entries its
// logs hold count in its state, so a run whose events and messages stay
// few but whose records pile up (a transactional run with a record every
// millisecond: the logs, the checkers' and the coordinator's tables grow
// with every record) stops at the bound too.
func TestStateBoundCountsRecords(t *testing.T) {
	sc, err := Lookup("txnlate")
	if err != nil {
		t.Fatal(err)
	}
	sets := []params.KV{{Key: "records", Value: "6000"}, {Key: "send.interval.ms", Value: "1"}}
	r := mustRun(t, Spec{Scenario: sc, Seed: 1, Sets: sets, MaxState: 1_000})
	if r.Stop != "state-limit" {
		t.Fatalf("stop = %s after %d records sent, want state-limit", r.Stop, r.Sent)
	}
	// A unit is world.HeldPerUnit records or entries: the run stops before it
	// sent HeldPerUnit records per unit, and after one per unit.
	if r.Sent < 1_000 || r.Sent > 1_000*world.HeldPerUnit {
		t.Errorf("stopped after %d records sent, want between 1,000 and %d", r.Sent, 1_000*world.HeldPerUnit)
	}
	if r := mustRun(t, Spec{Scenario: sc, Seed: 1, Sets: sets}); r.Stop != "drained" {
		t.Errorf("stop = %s under the default bound, want drained", r.Stop)
	}
}
