package scenarios

import (
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
)

// BenchmarkAcklossRun measures whole ackloss runs (idempotence on), and
// reports simulated events per second.
func BenchmarkAcklossRun(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "idempotence=on"
		if !on {
			name = "idempotence=off"
		}
		b.Run(name, func(b *testing.B) {
			sc, _ := Lookup("ackloss")
			b.ReportAllocs()
			var events int64
			for i := 0; i < b.N; i++ {
				r, err := Run(Spec{Scenario: sc, Seed: uint64(i), Sets: idem(on)})
				if err != nil {
					b.Fatal(err)
				}
				events += r.Events
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}

// BenchmarkAcklossLong is one long ackloss run (10,000 records), for
// events per second in steady state.
func BenchmarkAcklossLong(b *testing.B) {
	sc, _ := Lookup("ackloss")
	b.ReportAllocs()
	var events int64
	for i := 0; i < b.N; i++ {
		r, err := Run(Spec{Scenario: sc, Seed: uint64(i), Sets: []params.KV{{Key: "records", Value: "10000"}, {Key: "send.interval.ms", Value: "5"}}})
		if err != nil {
			b.Fatal(err)
		}
		events += r.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
