package scenarios

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// The scenario catalogue. Each scenario's fault plan draws its
// timing from the run's "faults" stream around a fixed trigger, so every
// seed exercises the failure and seeds only jitter it; fault.count adds
// generic noise faults on top.
//
// Each catalogue scenario is a file of its own, named after it
// (zombie.go), that adds it to the catalogue with register from an init
// function. This file holds the helpers several of them share.

// ms formats a millisecond count for parameter defaults.
func ms(d int64) string { return strconv.FormatInt(d, 10) }

// jitter returns base plus a uniform draw in [0, spread).
func jitter(rng *rand.Rand, base, spread time.Duration) time.Duration {
	if spread <= 0 {
		return base
	}
	return base + time.Duration(rng.Int64N(int64(spread)))
}

// withNoise appends fault.count generic faults to a scenario's plan,
// drawn around its own pauses and crashes (faults.GenOptions.Around).
func withNoise(rng *rand.Rand, v *params.Values, nodes faults.Nodes, p faults.Plan) faults.Plan {
	n := v.Config().Fault.Count
	if n == 0 {
		return p
	}
	kinds := v.Config().Fault.Kinds
	window := v.Config().Fault.Window
	if window == 0 {
		window = time.Duration(v.Config().App.Records) * v.Config().App.SendInterval
	}
	noise := faults.Generate(rng, faults.GenOptions{Faults: n, Kinds: kinds, Window: window,
		MaxDuration: v.Config().Fault.MaxDuration, Nodes: nodes, Around: p.Actions})
	p.Actions = append(p.Actions, noise.Actions...)
	p.SortByTime()
	return p
}

// restarts is the plan of n crashes of the first producer, each followed by
// a restart down later: crash i comes offset after send number
// (i+1)*records/(n+1). With fault.at.ms set (faultat.go) the first crash
// comes offset after fault.at.ms instead and the others keep their
// distance from it. A crash that would come before the previous restart
// (more restarts than the workload has room for, e.g. records=4) is left
// out: the producer is down then, and the world would ignore it.
func restarts(v *params.Values, nodes faults.Nodes, n int64, offset func() time.Duration, down time.Duration) faults.Plan {
	var p faults.Plan
	iv := v.Config().App.SendInterval
	records := v.Config().App.Records
	first := time.Duration(records/(n+1)) * iv
	shift := faultAt(v, first) - first
	for i := int64(0); i < n; i++ {
		k := (i + 1) * records / (n + 1)
		at := time.Duration(k)*iv + shift + offset()
		if l := len(p.Actions); l > 0 && at < p.Actions[l-1].At {
			continue
		}
		p.Actions = append(p.Actions,
			faults.Timed{At: at, Action: faults.Crash{Node: nodes.Clients[0]}},
			faults.Timed{At: at + down, Action: faults.Restart{Node: nodes.Clients[0]}})
	}
	return p
}

// oneApp is the build of a scenario with one application, whose first
// producer instance starts at time 0.
func oneApp(b world.Builder) error {
	b.AddApp(0)
	return nil
}

// leadersOf returns the leader destination of n partitions: all on b1.
func leadersOf(n int) []int32 { return make([]int32, n) }

var _ = model.DestCoordinator

// farFollowers is a net.link.latency that puts the followers b2 and b3 of
// partition 0 20 ms away from its leader b1 each way (another zone), so
// that a write sits on the leader alone for a fetch round trip (acks1,
// failover: replication scenarios, docs/replication.md).
const farFollowers = "b1>b2 constant base=20ms; b2>b1 constant base=20ms; b1>b3 constant base=20ms; b3>b1 constant base=20ms"
