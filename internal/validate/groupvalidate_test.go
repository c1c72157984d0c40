package validate

import (
	"context"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
)

// TestValidateEOSv2 runs validate on eosv2 with two real runs: the real
// side is the group application, the comparison is on the group counters
// (no error codes), and the client difference on aborted transactions is
// out of the verdict. groupid is refused with its reason.
func TestValidateEOSv2(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs of a few seconds")
	}
	t.Parallel() // its real runs mostly wait; no goroutine count here
	sc, err := scenarios.Lookup("eosv2")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Validate(context.Background(), Config{Scenario: sc, Runs: 2, SimRuns: 20, Base: 1, Margin: DefaultMargin, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Modes) != 1 || res.Modes[0].RealRuns != 2 {
		t.Fatalf("modes %+v, want idempotence on with 2 real runs", res.Modes)
	}
	got := map[string]Comparison{}
	for _, c := range res.Modes[0].Comparisons {
		got[c.Counter] = c
	}
	for _, k := range groupCounters {
		if _, ok := got[k.name]; !ok {
			t.Errorf("no comparison of %s: %v", k.name, got)
		}
	}
	if len(got) != len(groupCounters) {
		t.Errorf("%d comparisons, want the %d group counters: %v", len(got), len(groupCounters), got)
	}
	if c := got["txn_aborted"]; c.Excluded == "" || c.ExcludedBy != "client" {
		t.Errorf("txn_aborted is not excluded as a client difference: %+v", c)
	}
	if c := got["duplicates"]; c.Real.Value == nil || *c.Real.Value != 0 {
		t.Errorf("the real group application duplicated: %+v", c.Real)
	}
	gid, _ := scenarios.Lookup("groupid")
	if _, err := Validate(context.Background(), Config{Scenario: gid, Runs: 2, SimRuns: 2, Margin: DefaultMargin, Parallel: 1}); err == nil {
		t.Error("groupid was validated; it has no franz-go counterpart")
	}
}
