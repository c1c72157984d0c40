package client_test

import (
	"strconv"
	"testing"

	"github.com/idemsim/idemsim/model/client"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// TestRecycleUnreferenced runs every scenario under every client policy,
// with and without idempotence and with the documented defects, while the
// producer checks that each request and batch it recycles is referred to
// by nothing of the instance any more.
func TestRecycleUnreferenced(t *testing.T) {
	defer client.SetDebugRecycle(client.SetDebugRecycle(true))
	seeds := 20
	if testing.Short() {
		seeds = 2
	}
	type variant struct {
		name string
		bugs []string
		sets []params.KV
	}
	var vs []variant
	for _, sc := range scenarios.Names() {
		for _, pol := range []string{"java", "librdkafka", "franz-go"} {
			for _, idem := range []string{"true", "false"} {
				vs = append(vs, variant{name: sc, sets: []params.KV{{Key: "client.policy", Value: pol}, {Key: "enable.idempotence", Value: idem}}})
			}
		}
	}
	for _, b := range params.Bugs() {
		vs = append(vs, variant{name: b.Scenario, bugs: []string{b.ID}})
	}
	for _, v := range vs {
		sc, err := scenarios.Lookup(v.name)
		if err != nil {
			t.Fatal(err)
		}
		for seed := 1; seed <= seeds; seed++ {
			if _, err := scenarios.Run(scenarios.Spec{Scenario: sc, Seed: uint64(seed), Sets: v.sets, Bugs: v.bugs}); err != nil {
				// A combination the scenario refuses (a policy without
				// transactions, ...) is skipped.
				t.Logf("%s %v %v seed %s: %v", v.name, v.sets, v.bugs, strconv.Itoa(seed), err)
				break
			}
		}
	}
}
