package scenarios

import (
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
)

// TestOutcomeAccounting: every record the application sent ends in exactly
// one of acked, failed, pending or abandoned. The two cases were found by a
// 5,000-configuration campaign: an acknowledgement that arrives after a
// transactional instance went fatal (the record had no outcome), and
// records not yet batched or held by an open transaction that Pending
// missed.
func TestOutcomeAccounting(t *testing.T) {
	for _, c := range []struct {
		scenario string
		seed     uint64
		sets     []params.KV
	}{
		{"reorder", 1, []params.KV{{Key: "net.duplicate", Value: "0.001007"}, {Key: "request.timeout.ms", Value: "76"}, {Key: "transaction.records", Value: "2788"},
			{Key: "client.policy", Value: "librdkafka"}, {Key: "net.mode", Value: "datagram"}, {Key: "transactional.id", Value: "t9"}}},
		{"txntimeout", 18446744073709551615, []params.KV{{Key: "request.timeout.ms", Value: "1"}}},
	} {
		sc, err := Lookup(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		r := mustRun(t, Spec{Scenario: sc, Seed: c.seed, Sets: c.sets})
		if got := r.Acked + r.Failed + r.Pending + r.Abandoned; got != r.Sent {
			t.Errorf("%s: sent %d but acked %d + failed %d + pending %d + abandoned %d = %d\nreproduce: %s",
				c.scenario, r.Sent, r.Acked, r.Failed, r.Pending, r.Abandoned, got, r.Reproduce)
		}
	}
}

// TestOutcomeIdentityCatalogue: the simulator's accounting invariant
// (SIM-OUTCOME) holds in every catalogue scenario, in both modes, with and
// without generic noise faults. The runs without noise that
// TestCatalogueSeeds makes (its 200 seeds, 40 with -short: idempotence
// on, and off where the scenario shows a failure without it) are checked
// there, not run twice; this test runs the rest.
func TestOutcomeIdentityCatalogue(t *testing.T) {
	seeds := uint64(30)
	if testing.Short() {
		seeds = 8
	}
	for _, sc := range All() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= seeds; seed++ {
				for _, on := range []bool{true, false} {
					for _, noise := range []string{"0", "4"} {
						if noise == "0" && seed <= seedsFor(t) && (on || len(sc.OffShows) > 0) {
							continue // TestCatalogueSeeds' run (fault.count's default is 0)
						}
						r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: append(idem(on), params.KV{Key: "fault.count", Value: noise})})
						outcomeHolds(t, r)
					}
				}
			}
		})
	}
}

// outcomeHolds fails t if r violates the simulator's accounting
// (SIM-OUTCOME).
func outcomeHolds(t *testing.T, r *Result) {
	t.Helper()
	for _, v := range r.Violations {
		if v.Invariant == "SIM-OUTCOME" {
			t.Fatalf("%s\nreproduce: %s", v.Detail, r.Reproduce)
		}
	}
}
