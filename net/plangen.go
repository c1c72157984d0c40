package net

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// FaultKinds selects the kinds of fault [GeneratePlan] may draw.
type FaultKinds uint16

// Fault kinds for [GenOptions.Kinds].
const (
	// GenPause pauses a process (a GC pause) for up to MaxDuration.
	GenPause FaultKinds = 1 << iota
	// GenCrash crashes a process and restarts it up to MaxDuration later.
	GenCrash
	// GenPartition cuts a client from the servers both ways, healed up to
	// MaxDuration later.
	GenPartition
	// GenOneWay cuts one direction between a client and a server.
	GenOneWay
	// GenDrop drops one request or response (by number) on a client's link.
	GenDrop
	// GenDrift makes one process's timers run fast or slow.
	GenDrift

	// GenAll is every kind.
	GenAll = GenPause | GenCrash | GenPartition | GenOneWay | GenDrop | GenDrift
)

var genNames = [...]string{"pause", "crash", "partition", "oneway", "drop", "drift"}

// ParseFaultKinds parses a comma-separated list of kind names (pause,
// crash, partition, oneway, drop, drift) or "all".
func ParseFaultKinds(s string) (FaultKinds, error) {
	if s == "all" {
		return GenAll, nil
	}
	var k FaultKinds
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		i := slices.Index(genNames[:], f)
		if i < 0 {
			return 0, fmt.Errorf("fault.kinds: unknown kind %q (allowed: all, or a list of %s)", f, strings.Join(genNames[:], ", "))
		}
		k |= 1 << i
	}
	return k, nil
}

// Nodes names a world's processes for plan generation.
type Nodes struct {
	// Clients are the producer processes (p1, p2, ...).
	Clients []string
	// Servers are the broker and coordinator processes (b1, c1).
	Servers []string
}

// GenOptions are the knobs of [GeneratePlan]. The zero value generates no
// faults.
type GenOptions struct {
	// Faults is how many faults to draw, >= 0. A pause, a crash with its
	// restart, and a partition with its heal each count as one fault.
	Faults int
	// Kinds selects the fault kinds; zero means [GenAll].
	Kinds FaultKinds
	// Window is the span [0, Window) in which faults start; zero means
	// End.
	Window time.Duration
	// End becomes the plan's end: the fault phase's end. Faults that would
	// last beyond it are cut short by it.
	End time.Duration
	// MaxDuration bounds a pause, a partition and a crash's downtime;
	// zero means 10s.
	MaxDuration time.Duration
	// MaxRequest bounds the request number of a drop; zero means 50.
	MaxRequest int64
	// MaxDriftPPM bounds a drift's magnitude; zero means 100000 (10%).
	MaxDriftPPM int32
	// Nodes are the processes faults may hit.
	Nodes Nodes
}

// GeneratePlan draws a fault plan from rng, which should be the run's
// stream sim.StreamID("faults"). Faults are drawn one at a time: a kind
// uniformly among those enabled (and possible with the given nodes), a
// start time uniform in the window, then the kind's own draws. Actions are
// sorted by time (stably, so a fault's two actions keep their order).
// With Faults == 0 it draws nothing and returns Plan{End: opts.End}.
func GeneratePlan(rng *rand.Rand, opts GenOptions) Plan {
	p := Plan{End: opts.End}
	if opts.Faults <= 0 {
		return p
	}
	kinds := opts.Kinds
	if kinds == 0 {
		kinds = GenAll
	}
	window := opts.Window
	if window <= 0 {
		window = opts.End
	}
	if window <= 0 {
		window = time.Second
	}
	maxDur := opts.MaxDuration
	if maxDur <= 0 {
		maxDur = 10 * time.Second
	}
	maxReq := opts.MaxRequest
	if maxReq <= 0 {
		maxReq = 50
	}
	maxPPM := opts.MaxDriftPPM
	if maxPPM <= 0 {
		maxPPM = 100_000
	}
	all := slices.Concat(opts.Nodes.Clients, opts.Nodes.Servers)
	haveLinks := len(opts.Nodes.Clients) > 0 && len(opts.Nodes.Servers) > 0
	var enabled []FaultKinds
	for i := range genNames {
		k := FaultKinds(1) << i
		if kinds&k == 0 {
			continue
		}
		if (k == GenPartition || k == GenOneWay || k == GenDrop) && !haveLinks || len(all) == 0 {
			continue
		}
		enabled = append(enabled, k)
	}
	if len(enabled) == 0 {
		return p
	}
	pick := func(ns []string) string { return ns[rng.IntN(len(ns))] }
	dur := func() time.Duration {
		// Whole milliseconds, at least 1ms.
		return time.Duration(1+rng.Int64N(int64(maxDur/time.Millisecond)+1)) * time.Millisecond
	}
	clip := func(t time.Duration) time.Duration {
		if p.End > 0 && t > p.End {
			return p.End
		}
		return t
	}
	for range opts.Faults {
		k := enabled[rng.IntN(len(enabled))]
		at := time.Duration(rng.Int64N(int64(window/time.Millisecond)+1)) * time.Millisecond
		at = clip(at)
		switch k {
		case GenPause:
			p.Actions = append(p.Actions, Action{At: at, Kind: Pause, Node: pick(all), For: dur()})
		case GenCrash:
			n := pick(all)
			p.Actions = append(p.Actions,
				Action{At: at, Kind: Crash, Node: n},
				Action{At: clip(at + dur()), Kind: Restart, Node: n, Clean: rng.IntN(2) == 0})
		case GenPartition:
			c := pick(opts.Nodes.Clients)
			srv := slices.Clone(opts.Nodes.Servers)
			heal := clip(at + dur())
			p.Actions = append(p.Actions,
				Action{At: at, Kind: Partition, A: []string{c}, B: srv},
				Action{At: heal, Kind: Heal, A: []string{c}, B: srv})
		case GenOneWay:
			a, b := pick(opts.Nodes.Clients), pick(opts.Nodes.Servers)
			if rng.IntN(2) == 0 {
				a, b = b, a
			}
			heal := clip(at + dur())
			p.Actions = append(p.Actions,
				Action{At: at, Kind: PartitionOneWay, A: []string{a}, B: []string{b}},
				Action{At: heal, Kind: HealOneWay, A: []string{a}, B: []string{b}})
		case GenDrop:
			d := Request
			if rng.IntN(2) == 0 {
				d = Response
			}
			p.Actions = append(p.Actions, Action{At: at, Kind: Drop, Dir: d, N: 1 + rng.Int64N(maxReq),
				From: pick(opts.Nodes.Clients), To: pick(opts.Nodes.Servers)})
		case GenDrift:
			ppm := 1 + rng.Int32N(maxPPM)
			if rng.IntN(2) == 0 {
				ppm = -ppm
			}
			p.Actions = append(p.Actions, Action{At: at, Kind: Drift, Node: pick(all), PPM: ppm})
		}
	}
	p.SortByTime()
	return p
}

// SortByTime orders the plan's actions by time; actions at the same time
// keep their order.
func (p *Plan) SortByTime() {
	slices.SortStableFunc(p.Actions, func(a, b Action) int {
		switch {
		case a.At < b.At:
			return -1
		case a.At > b.At:
			return 1
		}
		return 0
	})
}
