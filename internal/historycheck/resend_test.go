package historycheck

import (
	"testing"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// TestGroupResendAgrees: a group application that seeks back after a
// transaction timeout hands its instance again records it had handed and
// the producer never sent; the history gives each acknowledgement to the
// send that made it (the earlier one ends unknown), so the checker and
// the invariants agree. Before, the earlier send took the later one's
// acknowledgement, and the later one's committed value showed as an
// aborted read (eosv2 at transaction.timeout.ms=20000 with the agreement
// test's faults, seeds 2, 14 and 15).
func TestGroupResendAgrees(t *testing.T) {
	sc, err := scenarios.Lookup("eosv2")
	if err != nil {
		t.Fatal(err)
	}
	sets := append([]params.KV{{Key: "enable.idempotence", Value: "true"}, {Key: "transaction.timeout.ms", Value: "20000"}}, faultSets...)
	for _, seed := range []uint64{2, 14, 15} {
		msg, _, err := agree(scenarios.Spec{Scenario: sc, Seed: seed, Sets: sets})
		if err != nil {
			t.Fatal(err)
		}
		if msg != "" {
			t.Errorf("seed %d: %s", seed, msg)
		}
	}
}
