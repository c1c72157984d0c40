package check

import (
	"testing"

	"github.com/idemsim/idemsim/model"
)

// BenchmarkSuite judges one synthetic run (stream_test.go, about 3,900
// observations) per iteration: "new" builds a suite with NewSuite, as a
// run does today; "reset" reuses one suite with Reset, as a sweep
// between seeds can. Both observe the whole stream and call Finish; the
// allocations per run and per observation are reported beside the time.
func BenchmarkSuite(b *testing.B) {
	stream := genStream(1, 600, false)
	cfg := genConfig()
	for _, mode := range []string{"new", "reset"} {
		b.Run(mode, func(b *testing.B) {
			s := NewSuite(cfg)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if mode == "new" {
					s = NewSuite(cfg)
				} else {
					s.Reset(cfg)
				}
				for i := range stream {
					s.Observe(&stream[i])
				}
				s.Finish()
			}
			b.ReportMetric(float64(len(stream)), "obs/run")
		})
	}
}

// BenchmarkObserve is the steady state: one suite observing the same
// stream again and again, its logs ever longer (ns and allocations per
// observation).
func BenchmarkObserve(b *testing.B) {
	stream := genStream(2, 600, false)
	s := NewSuite(genConfig())
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		o := &stream[i%len(stream)]
		if o.Kind == model.ObsRunEnd {
			continue
		}
		s.Observe(o)
	}
}
