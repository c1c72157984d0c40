package explore

import (
	"context"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// BenchmarkExplore explores on one worker and reports schedules and
// distinct states per second and the share of the runs' time spent
// hashing states (hash-%):
//
//   - prune, noprune: ackloss (3 records, idempotence on) with at most 2
//     faults, 6,465 schedules, with and without pruning;
//   - ackloss-K3: the same with at most 3 faults and -all, the issue's
//     first target (386,949 schedules; tens of seconds an op);
//   - prune-branch: prune with -explore-branch on;
//   - zombie3-K1, zombie3-K1-branch: zombie (3 records) with at most 1
//     fault (4,911 schedules), without and with -explore-branch: the
//     one-fault runs are not hashed, so branching saves their prefixes;
//   - zombie-full, coordfailover, failover: the first 100 schedules of
//     the other targets (-all, at most 2 faults; zombie with the
//     full menu; coordfailover and failover without their per-link
//     latencies, which -explore refuses), all of them one-fault
//     schedules whose states are hashed.
//
// ackloss-K3 takes tens of seconds an op; name one to run it alone, as
// go test -bench 'Explore/ackloss-K3' -run XXX ./internal/explore.
func BenchmarkExplore(b *testing.B) {
	for _, bc := range []struct {
		name     string
		scenario string
		k        int
		prune    bool
		all      bool
		full     bool
		budget   int64
		branch   bool
		sets     []params.KV
	}{
		{name: "prune", scenario: "ackloss", k: 2, prune: true, sets: []params.KV{{Key: "records", Value: "3"}}},
		{name: "noprune", scenario: "ackloss", k: 2, sets: []params.KV{{Key: "records", Value: "3"}}},
		{name: "ackloss-K3", scenario: "ackloss", k: 3, prune: true, all: true, sets: []params.KV{{Key: "records", Value: "3"}}},
		{name: "prune-branch", scenario: "ackloss", k: 2, prune: true, branch: true, sets: []params.KV{{Key: "records", Value: "3"}}},
		{name: "zombie3-K1", scenario: "zombie", k: 1, prune: true, sets: []params.KV{{Key: "records", Value: "3"}}},
		{name: "zombie3-K1-branch", scenario: "zombie", k: 1, prune: true, branch: true, sets: []params.KV{{Key: "records", Value: "3"}}},
		{name: "zombie-full", scenario: "zombie", k: 2, prune: true, all: true, full: true, budget: 100},
		{name: "coordfailover", scenario: "coordfailover", k: 2, prune: true, all: true, budget: 100, sets: []params.KV{{Key: "net.link.latency", Value: ""}}},
		{name: "failover", scenario: "failover", k: 2, prune: true, all: true, budget: 100, sets: []params.KV{{Key: "net.link.latency", Value: ""}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			sc, err := scenarios.Lookup(bc.scenario)
			if err != nil {
				b.Fatal(err)
			}
			var sched, states int64
			var runs, hashing, saving, restoring float64
			for b.Loop() {
				r, err := Run(context.Background(), Config{Scenario: sc, Seed: 1, MaxFaults: bc.k, Prune: bc.prune, Reduce: true, Parallel: 1,
					All: bc.all, FullMenu: bc.full, Budget: bc.budget, Branch: bc.branch, Sets: bc.sets})
				if err != nil {
					b.Fatal(err)
				}
				sched += r.Schedules
				states += r.States
				runs += r.Timing.Runs.Seconds()
				hashing += r.Timing.Hashing.Seconds()
				saving += r.Timing.Saving.Seconds()
				restoring += r.Timing.Restoring.Seconds()
			}
			s := b.Elapsed().Seconds()
			b.ReportMetric(float64(sched)/s, "schedules/s")
			b.ReportMetric(float64(states)/s, "states/s")
			if runs > 0 {
				b.ReportMetric(100*hashing/runs, "hash-%")
				if bc.branch {
					b.ReportMetric(100*saving/runs, "save-%")
					b.ReportMetric(100*restoring/runs, "restore-%")
				}
			}
		})
	}
}
