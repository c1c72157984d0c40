package plots_test

import (
	"log"
	"math/rand/v2"

	"github.com/idemsim/idemsim/plots"
)

// ExampleChart draws a rate against a varied parameter, one line per mode
// with 95% error bars, and writes testdata/rates.svg.
func ExampleChart() {
	rnd := rand.New(rand.NewPCG(1, 1))
	series := func(label string, scale float64) plots.Series {
		s := plots.Series{Label: label}
		for i := range 7 {
			x := 0.05 * float64(i)
			y := scale * x * (0.9 + 0.2*rnd.Float64())
			s.X, s.Y = append(s.X, x), append(s.Y, y)
			s.Lo, s.Hi = append(s.Lo, max(0, y-0.01)), append(s.Hi, y+0.01)
		}
		return s
	}
	c := &plots.Chart{
		Title:    "ackloss: duplicate rate against net.response_loss",
		XLabel:   "net.response_loss (probability)",
		YLabel:   "duplicates / records sent",
		Footnote: "seeds 1..1000 (1000 runs per point and mode), idemsim 0.1.0\ngo run ./cmd/simulate -scenario ackloss -runs 1000 -seed 1 -vary net.response_loss=0:0.3:0.05",
		Series:   []plots.Series{series("idempotence off", 0.5), series("idempotence on", 0)},
		YMin0:    true,
	}
	if err := c.Save("testdata/rates.svg"); err != nil {
		log.Panic(err)
	}
}

// ExampleNewCDF draws two latency distributions as step functions on a
// log axis and writes testdata/cdf.svg.
func ExampleNewCDF() {
	rnd := rand.New(rand.NewPCG(1, 1))
	series := func(label string, tail float64) plots.Series {
		s := plots.Series{Label: label}
		n := 50
		for i := range n {
			x := 1 + float64(i)*0.1 + rnd.Float64()*0.05
			if i >= n-3 {
				x += tail
			}
			s.X, s.Y = append(s.X, x), append(s.Y, float64(i+1)/float64(n))
		}
		return s
	}
	c := plots.NewCDF("ackloss: send-to-ack latency", "send-to-ack latency (ms)",
		"seeds 1..100 (100 runs per mode), idemsim 0.1.0",
		series("idempotence off", 1000), series("idempotence on", 1000))
	if err := c.Save("testdata/cdf.svg"); err != nil {
		log.Panic(err)
	}
}
