package faults

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestGenerateAppliesToState: every generated action applies to the state
// the plan has reached: no pause or stall of a crashed process, no pause
// of a paused one, no second crash, no restart of a running process. On
// main the fault.count=8 plan of seed 42 crashed p1 twice, paused it while
// crashed and restarted it twice.
func TestGenerateAppliesToState(t *testing.T) {
	nodes := Nodes{Clients: []string{"p1", "p2"}, Servers: []string{"b1", "c1"}}
	for seed := range uint64(300) {
		for _, count := range []int{8, 50, 1000} {
			rng := rand.New(rand.NewPCG(seed, 7))
			p := Generate(rng, GenOptions{Faults: count, Kinds: GenAll | GenStall, Window: 5 * time.Second, End: 20 * time.Second, Nodes: nodes})
			crashed := map[string]bool{}
			pausedUntil := map[string]time.Duration{}
			paused := func(n string, at time.Duration) bool {
				u, ok := pausedUntil[n]
				return ok && u >= at
			}
			for _, a := range p.Actions {
				switch x := a.Action.(type) {
				case Pause:
					if crashed[x.Node] || paused(x.Node, a.At) {
						t.Fatalf("seed %d count %d: %v pauses %s, which is down\n%s", seed, count, a.At, x.Node, p.String())
					}
					pausedUntil[x.Node] = min(a.At+x.For, p.End)
				case Crash:
					if crashed[x.Node] || paused(x.Node, a.At) {
						t.Fatalf("seed %d count %d: %v crashes %s, which is down\n%s", seed, count, a.At, x.Node, p.String())
					}
					crashed[x.Node] = true
				case Restart:
					if !crashed[x.Node] {
						t.Fatalf("seed %d count %d: %v restarts running %s\n%s", seed, count, a.At, x.Node, p.String())
					}
					crashed[x.Node] = false
				case Stall:
					if crashed[x.Node] {
						t.Fatalf("seed %d count %d: %v stalls crashed %s\n%s", seed, count, a.At, x.Node, p.String())
					}
				}
			}
		}
	}
}
