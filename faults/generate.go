package faults

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	simnet "github.com/idemsim/idemsim/net"
)

// shutdownSlack is the generator's bound on a controlled shutdown's
// length (the broker waits for the other brokers' next heartbeats, 2 s
// apart by default): no other fault of the broker is drawn in it.
const shutdownSlack = 10 * time.Second

// Kinds selects the kinds of fault [Generate] may draw.
type Kinds uint16

// Fault kinds for [GenOptions.Kinds], with their names in the fault.kinds
// parameter.
const (
	// GenPause ("pause") pauses a process (a GC pause) for up to
	// MaxDuration.
	GenPause Kinds = 1 << iota
	// GenCrash ("crash") crashes a process and restarts it up to
	// MaxDuration later.
	GenCrash
	// GenCut ("partition") cuts a client from the servers both ways,
	// healed up to MaxDuration later.
	GenCut
	// GenCutOneWay ("oneway") cuts one direction between a client and a
	// server, healed up to MaxDuration later.
	GenCutOneWay
	// GenDrop ("drop") drops one request or response (by number) on a
	// client's link.
	GenDrop
	// GenDrift ("drift") makes one process's timers run fast or slow.
	GenDrift
	// GenStall ("stall") stalls a server's request handlers for up to
	// MaxDuration. It is not in GenAll: name it ("all,stall").
	GenStall
	// GenDeleteRecords ("delete-records") sends an operator's
	// DeleteRecords to a broker, for a partition, before an offset up to
	// MaxRequest. It is not in GenAll: name it.
	GenDeleteRecords
	// GenShutdown ("shutdown") shuts a broker down cleanly (a controlled
	// shutdown) and keeps it down up to MaxDuration; only in a replicated
	// world. It is not in GenAll: name it ("all,shutdown").
	GenShutdown
	// GenElectPreferred ("elect-preferred") has the controller elect
	// every partition's preferred leader; only in a replicated world. It
	// is not in GenAll: name it.
	GenElectPreferred
	// GenReassign ("reassign") reassigns a partition to min(3, brokers)
	// brokers in a random order; only in a replicated world. It is not in
	// GenAll: name it.
	GenReassign
	// GenSlowPoll ("slow-poll") has a consumer group member's application
	// take a processing step of up to MaxDuration without polling; only
	// in a world with group members. It is not in GenAll: name it.
	GenSlowPoll
	// GenMuteHeartbeat ("mute-heartbeat") silences a consumer group
	// member's heartbeat thread for up to MaxDuration; only in a world
	// with group members. It is not in GenAll: name it.
	GenMuteHeartbeat

	// GenAll ("all") is the kinds the generator had before stall was
	// added: pause, crash, partition, oneway, drop and drift. It stays
	// that set so that a seed printed in an earlier reproduce line still
	// generates the same plan; newer kinds are named explicitly.
	GenAll = GenPause | GenCrash | GenCut | GenCutOneWay | GenDrop | GenDrift
)

var kindNames = [...]string{"pause", "crash", "partition", "oneway", "drop", "drift", "stall", "delete-records", "shutdown", "elect-preferred", "reassign", "slow-poll", "mute-heartbeat"}

// ParseKinds parses a comma-separated list of kind names (pause, crash,
// partition, oneway, drop, drift, stall, delete-records, shutdown,
// elect-preferred, reassign, slow-poll, mute-heartbeat, and "all" for
// the first six).
func ParseKinds(s string) (Kinds, error) {
	if s == "all" {
		return GenAll, nil
	}
	var k Kinds
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "all" {
			k |= GenAll
			continue
		}
		i := slices.Index(kindNames[:], f)
		if i < 0 {
			return 0, fmt.Errorf("fault.kinds: unknown kind %q (allowed: all, or a list of %s)", f, strings.Join(kindNames[:], ", "))
		}
		k |= 1 << i
	}
	return k, nil
}

// GenOptions are the knobs of [Generate]. The zero value generates no
// faults.
type GenOptions struct {
	// Faults is how many faults to draw, >= 0. A pause, a crash with its
	// restart, and a partition with its heal each count as one fault.
	Faults int
	// Kinds selects the fault kinds; zero means [GenAll].
	Kinds Kinds
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
	// Around are actions the plan holds besides the drawn ones (a
	// scenario's own, which the caller merges with the drawn plan): the
	// generator draws no pause, crash or stall of a process at a time
	// Around has it crashed (from a crash to its restart in Around, else
	// for good), and no crash over the start of a pause or stall of
	// Around, so that the merged plan passes [Plan.CheckSequence] when
	// Around does. It may still pause a process Around pauses (the
	// pauses overlap, as they did before Around existed).
	Around []Timed
}

// Generate draws a fault plan from rng, which should be the run's stream
// sim.StreamID("faults"). Faults are drawn one at a time: a kind uniformly
// among those enabled (and possible with the given nodes), a start time
// uniform in the window, then the kind's own draws. A pause or a crash
// (with its restart) hits only a process that is up over its whole span
// in the plan drawn so far, and a stall only a server not crashed when it
// starts: every action applies to the state the plan has reached. A fault
// with no such process is not drawn, so a plan may hold fewer than
// Faults faults. Actions are sorted by
// time (stably, so a fault's two actions keep their order). With Faults
// == 0 it draws nothing and returns Plan{End: opts.End}.
func Generate(rng *rand.Rand, opts GenOptions) Plan {
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
	clients, servers := opts.Nodes.Clients, opts.Nodes.Servers
	all := opts.Nodes.all()
	haveLinks := len(clients) > 0 && len(servers) > 0
	var enabled []Kinds
	for i := range kindNames {
		k := Kinds(1) << i
		if kinds&k == 0 {
			continue
		}
		if (k == GenCut || k == GenCutOneWay || k == GenDrop) && !haveLinks || k == GenStall && len(servers) == 0 || len(all) == 0 ||
			k == GenDeleteRecords && (len(opts.Nodes.Brokers) == 0 || opts.Nodes.Partitions <= 0) ||
			(k == GenShutdown || k == GenElectPreferred) && (len(opts.Nodes.Controllers) == 0 || len(opts.Nodes.Brokers) == 0) ||
			k == GenReassign && (len(opts.Nodes.Controllers) == 0 || len(opts.Nodes.Brokers) == 0 || opts.Nodes.Partitions <= 0) ||
			(k == GenSlowPoll || k == GenMuteHeartbeat) && len(opts.Nodes.Members) == 0 {
			continue
		}
		enabled = append(enabled, k)
	}
	if len(enabled) == 0 {
		return p
	}
	// The draws below, their order included, fix every seed's plan:
	// change them and every generated plan changes.
	pick := func(ns []string) string { return ns[rng.IntN(len(ns))] }
	dur := func() time.Duration {
		// Whole milliseconds, at least 1ms.
		return time.Duration(1+rng.Int64N(int64(maxDur/time.Millisecond)+1)) * time.Millisecond
	}
	coin := func() bool { return rng.IntN(2) == 0 }
	clip := func(t time.Duration) time.Duration {
		if p.End > 0 && t > p.End {
			return p.End
		}
		return t
	}
	add := func(at time.Duration, a Action) { p.Actions = append(p.Actions, Timed{At: at, Action: a}) }
	// down holds, per node, the spans [from, to] in which the plan has it
	// paused or crashed (a crash up to its restart). A pause or crash is
	// drawn only for a node up over its whole span, and a stall only for
	// a server not crashed when it starts, so that every generated action
	// applies to the state the plan has reached: no pause of a crashed
	// node, no second crash, no restart of a running node.
	type span struct {
		from, to time.Duration
		crash    bool
		// around: the start of a pause or stall of opts.Around, which
		// only a crash must not cover (a pause of a paused process is
		// allowed, and what Around drew before this option existed).
		around bool
	}
	down := map[string][]span{}
	for i, a := range opts.Around {
		switch x := a.Action.(type) {
		case Pause:
			down[x.Node] = append(down[x.Node], span{a.At, a.At, false, true})
		case Stall:
			down[x.Node] = append(down[x.Node], span{a.At, a.At, false, true})
		case Shutdown:
			// Down from the request to the restart, as a crash.
			down[x.Node] = append(down[x.Node], span{a.At, a.At + shutdownSlack + x.Down, true, false})
		case Crash:
			up := time.Duration(math.MaxInt64)
			for _, b := range opts.Around[i+1:] {
				if r, ok := b.Action.(Restart); ok && r.Node == x.Node && b.At >= a.At {
					up = b.At
					break
				}
			}
			down[x.Node] = append(down[x.Node], span{a.At, up, true, false})
		}
	}
	// upOver reports whether node n is up over [from, to] for a crash
	// (crashOnly false), a pause (pause true: Around's pauses and stalls
	// do not count) or a stall (crashOnly true: only crashes count).
	upOver := func(n string, from, to time.Duration, crashOnly, pause bool) bool {
		for _, s := range down[n] {
			if crashOnly && !s.crash || pause && s.around {
				continue
			}
			if s.from <= to && from <= s.to {
				return false
			}
		}
		return true
	}
	free := func(ns []string, from, to time.Duration, crashOnly, pause bool) []string {
		var out []string
		for _, n := range ns {
			if upOver(n, from, to, crashOnly, pause) {
				out = append(out, n)
			}
		}
		return out
	}
	for range opts.Faults {
		k := enabled[rng.IntN(len(enabled))]
		at := time.Duration(rng.Int64N(int64(window/time.Millisecond)+1)) * time.Millisecond
		at = clip(at)
		switch k {
		case GenPause:
			d := dur()
			ns := free(all, at, clip(at+d), false, true)
			if len(ns) == 0 {
				continue // every process is down then: the fault would be ignored
			}
			n := pick(ns)
			down[n] = append(down[n], span{at, clip(at + d), false, false})
			add(at, Pause{Node: n, For: d})
		case GenCrash:
			up := clip(at + dur())
			ns := free(all, at, up, false, false)
			if len(ns) == 0 {
				continue
			}
			n := pick(ns)
			down[n] = append(down[n], span{at, up, true, false})
			add(at, Crash{Node: n})
			add(up, Restart{Node: n, Clean: coin()})
		case GenCut:
			if len(opts.Nodes.Controllers) > 0 && len(opts.Nodes.Brokers) > 1 && coin() {
				// A replicated world: half the cuts isolate one broker
				// from the other servers (its followers or leader and the
				// controller), its clients still reaching it.
				b := pick(opts.Nodes.Brokers)
				var rest []string
				for _, n := range servers {
					if n != b {
						rest = append(rest, n)
					}
				}
				heal := clip(at + dur())
				add(at, Cut{A: []string{b}, B: rest})
				add(heal, Heal{A: []string{b}, B: rest})
				break
			}
			c := pick(clients)
			srv := slices.Clone(servers)
			heal := clip(at + dur())
			add(at, Cut{A: []string{c}, B: srv})
			add(heal, Heal{A: []string{c}, B: srv})
		case GenCutOneWay:
			a := pick(clients)
			b := pick(servers)
			if coin() {
				a, b = b, a
			}
			heal := clip(at + dur())
			add(at, CutOneWay{A: []string{a}, B: []string{b}})
			add(heal, HealOneWay{A: []string{a}, B: []string{b}})
		case GenDrop:
			d := simnet.Request
			if coin() {
				d = simnet.Response
			}
			n := 1 + rng.Int64N(maxReq)
			from := pick(clients)
			to := pick(servers)
			add(at, Drop{Dir: d, N: n, From: from, To: to})
		case GenDrift:
			ppm := 1 + rng.Int32N(maxPPM)
			if coin() {
				ppm = -ppm
			}
			add(at, Drift{Node: pick(all), PPM: ppm})
		case GenStall:
			d := dur()
			ns := free(servers, at, at, true, false)
			if len(ns) == 0 {
				continue
			}
			n := pick(ns)
			// A later crash must not cover the stall's start.
			down[n] = append(down[n], span{at, at, false, false})
			add(at, Stall{Node: n, For: d})
		case GenDeleteRecords:
			add(at, DeleteRecords{Broker: pick(opts.Nodes.Brokers), Part: rng.Int32N(opts.Nodes.Partitions), Before: 1 + rng.Int64N(maxReq)})
		case GenShutdown:
			// Down from the request to the restart: the controlled
			// shutdown's few seconds (shutdownSlack) and the downtime.
			d := dur()
			up := clip(at + shutdownSlack + d)
			ns := free(opts.Nodes.Brokers, at, up, false, false)
			if len(ns) == 0 {
				continue
			}
			n := pick(ns)
			down[n] = append(down[n], span{at, up, true, false})
			add(at, Shutdown{Node: n, Down: d})
		case GenElectPreferred:
			add(at, ElectPreferred{})
		case GenReassign:
			part := rng.Int32N(opts.Nodes.Partitions)
			perm := rng.Perm(len(opts.Nodes.Brokers))
			var rs []string
			for _, j := range perm[:min(3, len(perm))] {
				rs = append(rs, opts.Nodes.Brokers[j])
			}
			add(at, Reassign{Part: part, Replicas: rs})
		case GenSlowPoll, GenMuteHeartbeat:
			d := dur()
			ns := free(opts.Nodes.Members, at, at, true, false)
			if len(ns) == 0 {
				continue // every member is crashed then
			}
			if n := pick(ns); k == GenSlowPoll {
				add(at, SlowPoll{Node: n, For: d})
			} else {
				add(at, MuteHeartbeat{Node: n, For: d})
			}
		}
	}
	p.SortByTime()
	return p
}
