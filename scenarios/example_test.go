package scenarios_test

import (
	"fmt"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// ExampleRun runs one seeded scenario with idempotence off and on and
// prints what the checker found.
func ExampleRun() {
	sc, err := scenarios.Lookup("ackloss")
	if err != nil {
		panic(err)
	}
	for _, on := range []string{"false", "true"} {
		r, err := scenarios.Run(scenarios.Spec{
			Scenario: sc,
			Seed:     4,
			Sets:     []params.KV{{Key: "enable.idempotence", Value: on}},
		})
		if err != nil {
			panic(err)
		}
		fmt.Printf("idempotence=%v sent=%d acked=%d appended=%d duplicates=%d violations=%d\n",
			r.Idempotence, r.Sent, r.Acked, r.Appended, r.Duplicates, len(r.Violations))
	}
	// Output:
	// idempotence=false sent=20 acked=20 appended=21 duplicates=1 violations=4
	// idempotence=true sent=20 acked=20 appended=20 duplicates=0 violations=0
}
