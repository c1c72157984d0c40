package sweep

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/idemsim/idemsim/scenarios"
)

// benchSeeds is the seeds per sweep in the benchmarks (both modes run).
const benchSeeds = 500

func benchSweep(b *testing.B, sc *scenarios.Scenario, par int) time.Duration {
	start := time.Now()
	st, err := Run(context.Background(), Config{Scenario: sc, Base: 1, Runs: benchSeeds, Parallel: par, FailingK: 5})
	if err != nil {
		b.Fatal(err)
	}
	_ = st.Summarize()
	return time.Since(start)
}

// BenchmarkSweep measures sweep throughput in runs per second (a run is
// one seed in one mode) for every catalogue scenario, with -parallel 1
// and 2, and the scaling ratio of the two.
func BenchmarkSweep(b *testing.B) {
	for _, name := range scenarios.Names() {
		sc, _ := scenarios.Lookup(name)
		for _, par := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/parallel=%d", name, par), func(b *testing.B) {
				for b.Loop() {
					benchSweep(b, sc, par)
				}
				b.ReportMetric(float64(2*benchSeeds*b.N)/b.Elapsed().Seconds(), "runs/s")
			})
		}
		b.Run(name+"/scaling", func(b *testing.B) {
			var t1, t2 time.Duration
			for b.Loop() {
				t1 += benchSweep(b, sc, 1)
				t2 += benchSweep(b, sc, 2)
			}
			b.ReportMetric(t1.Seconds()/t2.Seconds(), "speedup_p2/p1")
		})
	}
}
