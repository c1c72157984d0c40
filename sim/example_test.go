package sim_test

import (
	"fmt"
	"time"

	"github.com/idemsim/idemsim/sim"
)

// ping is a typed event: it can describe itself, so it can be traced.
type ping struct{ n int }

func (p ping) AppendDescription(b []byte) []byte { return fmt.Appendf(b, "ping %d", p.n) }

type printer struct{ loop *sim.Loop[ping] }

func (h printer) Handle(now sim.Time, seq uint64, ev ping) {
	fmt.Println(now, sim.Describe(ev))
}

// ExampleLoop schedules three events; the two at the same time run in the
// order they were scheduled.
func ExampleLoop() {
	var l sim.Loop[ping]
	l.After(2*time.Millisecond, ping{1})
	l.After(time.Millisecond, ping{2})
	l.After(2*time.Millisecond, ping{3})
	l.Run(sim.Limits{}, printer{&l})
	// Output:
	// 0.001000000s ping 2
	// 0.002000000s ping 1
	// 0.002000000s ping 3
}
