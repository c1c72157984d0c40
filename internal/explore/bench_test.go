package explore

import (
	"context"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// BenchmarkExplore explores ackloss (3 records, idempotence on) with at
// most 2 faults and reports schedules and distinct states per second.
func BenchmarkExplore(b *testing.B) {
	for _, bc := range []struct {
		name  string
		prune bool
	}{{"prune", true}, {"noprune", false}} {
		b.Run(bc.name, func(b *testing.B) {
			sc, _ := scenarios.Lookup("ackloss")
			var sched, states int64
			for b.Loop() {
				r, err := Run(context.Background(), Config{Scenario: sc, Seed: 1, MaxFaults: 2, Prune: bc.prune, Reduce: true, Parallel: 1,
					Sets: []params.KV{{Key: "records", Value: "3"}}})
				if err != nil {
					b.Fatal(err)
				}
				sched += r.Schedules
				states += r.States
			}
			s := b.Elapsed().Seconds()
			b.ReportMetric(float64(sched)/s, "schedules/s")
			b.ReportMetric(float64(states)/s, "states/s")
		})
	}
}
