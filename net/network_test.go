package net_test

import (
	"math"
	"strings"
	"testing"
	"time"

	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

var names = []string{"p1", "b1"}

func newNet(cfg simnet.Config, seed uint64) *simnet.Network {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	return simnet.New(cfg, sim.NewRand(seed, sim.StreamID("net")), names)
}

// TestTCPPerConnectionOrder: on one TCP connection, messages arrive in the
// order they were sent, whatever the latency draws.
func TestTCPPerConnectionOrder(t *testing.T) {
	cfg := simnet.Config{Latency: simnet.Latency{Dist: simnet.LogNormal, Base: 100 * time.Microsecond, Spread: 5 * time.Millisecond, Sigma: 1.5, TailProb: 0.05, Tail: 50 * time.Millisecond}}
	for seed := range uint64(20) {
		nw := newNet(cfg, seed)
		c := nw.Connect(0, 1)
		for _, dir := range []simnet.Direction{simnet.Request, simnet.Response} {
			last := sim.Time(0)
			for i := range 500 {
				s := nw.Send(sim.Time(i)*sim.Time(100*time.Microsecond), c, dir)
				if s.Fate != simnet.Delivered {
					t.Fatalf("seed %d: message %d: fate %v on a lossless network", seed, i, s.Fate)
				}
				if s.At < last {
					t.Fatalf("seed %d %v: message %d arrives at %v, before the previous one at %v", seed, dir, i, s.At, last)
				}
				last = s.At
			}
		}
	}
}

// TestTCPLossBreaksConnection: a lost message takes everything still on
// its connection, in both directions, and the client gets a notice.
func TestTCPLossBreaksConnection(t *testing.T) {
	cfg := simnet.Config{Latency: simnet.Latency{Base: time.Millisecond}, DisconnectNotice: 1}
	nw := newNet(cfg, 1)
	c := nw.Connect(0, 1)
	var toks []simnet.Token
	for i := range 3 {
		s := nw.Send(sim.Time(i), c, simnet.Request)
		toks = append(toks, s.Tok)
	}
	toks = append(toks, nw.Send(3, c, simnet.Response).Tok)
	if s := nw.SendLost(4, c, simnet.Request); s.Fate != simnet.Lost || !s.Forced {
		t.Fatalf("SendLost: fate %v forced %v, want lost forced", s.Fate, s.Forced)
	}
	for i, tok := range toks {
		if f := nw.Arrive(tok); f != simnet.ConnBroken {
			t.Errorf("in-flight message %d: fate %v, want conn-broken", i, f)
		}
	}
	if s := nw.Send(5, c, simnet.Request); s.Fate != simnet.ConnBroken {
		t.Errorf("send on a broken connection: fate %v, want conn-broken", s.Fate)
	}
	ns := nw.TakeNotices(4)
	if len(ns) != 1 || ns[0].Conn != c || ns[0].At != 4+sim.Time(time.Millisecond) {
		t.Errorf("notices = %+v, want one for %v one latency after the loss", ns, c)
	}
	if ns := nw.TakeNotices(6); len(ns) != 0 {
		t.Errorf("notices were not consumed: %+v", ns)
	}
	c2 := nw.Connect(0, 1)
	if s := nw.Send(6, c2, simnet.Request); s.Fate != simnet.Delivered || nw.Arrive(s.Tok) != simnet.Delivered {
		t.Errorf("new connection does not deliver")
	}
	// Closing by the client is not a network break: no notice.
	nw.Close(c2)
	if ns := nw.TakeNotices(7); len(ns) != 0 {
		t.Errorf("client close produced notices %+v", ns)
	}
}

// TestTCPRandomLossBreaks: after the first random loss, nothing more goes
// through the connection.
func TestTCPRandomLossBreaks(t *testing.T) {
	nw := newNet(simnet.Config{RequestLoss: 0.2}, 7)
	c := nw.Connect(0, 1)
	lost := false
	for i := range 200 {
		s := nw.Send(sim.Time(i), c, simnet.Request)
		switch {
		case lost && s.Fate != simnet.ConnBroken:
			t.Fatalf("message %d after a loss: fate %v", i, s.Fate)
		case s.Fate == simnet.Lost:
			lost = true
		}
	}
	if !lost {
		t.Fatal("no loss in 200 sends at 20%")
	}
}

// TestPartitionDropsInFlight: a partition drops what is on the wire across
// it, even if healed before the message would arrive; a one-way partition
// leaves the other direction alone; notices do not cross a partition.
func TestPartitionDropsInFlight(t *testing.T) {
	for _, mode := range []simnet.Mode{simnet.TCP, simnet.Datagram} {
		nw := newNet(simnet.Config{Mode: mode, Latency: simnet.Latency{Base: time.Millisecond}, DisconnectNotice: 1}, 1)
		c := nw.Connect(0, 1)
		req := nw.Send(0, c, simnet.Request)
		nw.Cut(0, 1)
		nw.Heal(0, 1)
		if f := nw.Arrive(req.Tok); f != simnet.Partitioned {
			t.Errorf("%v: in-flight request across a healed cut: %v, want partitioned", mode, f)
		}
		c = nw.Connect(0, 1)
		nw.Cut(1, 0) // one way: b1 -> p1 only
		req = nw.Send(1, c, simnet.Request)
		if req.Fate != simnet.Delivered || nw.Arrive(req.Tok) != simnet.Delivered {
			t.Errorf("%v: request p1->b1 under a b1->p1 cut was not delivered", mode)
		}
		if s := nw.Send(2, c, simnet.Response); s.Fate != simnet.Partitioned {
			t.Errorf("%v: response b1->p1 under a b1->p1 cut: %v", mode, s.Fate)
		}
		if ns := nw.TakeNotices(2); len(ns) != 0 {
			t.Errorf("%v: a notice crossed the partition: %+v", mode, ns)
		}
		nw.Quiet()
		if nw.Blocked(1, 0) {
			t.Errorf("%v: Quiet did not heal", mode)
		}
	}
}

// TestDatagramRates checks loss, duplication and reordering against their
// configured probabilities over many seeds. Messages are sent in pairs 1ms
// apart on a constant 1ms link, with a reorder delay of 5ms: the second
// message overtakes the first exactly when the first is held back and the
// second is not, probability r(1-r) per pair of delivered messages. Each
// count must lie within 4 binomial standard deviations, sqrt(n p (1-p)), of
// n p; a correct implementation fails one of the three checks with
// probability about 2e-4.
func TestDatagramRates(t *testing.T) {
	const (
		seeds = 200
		pairs = 50
		loss  = 0.05
		dup   = 0.1
		reord = 0.2
	)
	cfg := simnet.Config{Mode: simnet.Datagram, Latency: simnet.Latency{Base: time.Millisecond},
		RequestLoss: loss, Duplicate: dup, Reorder: reord, ReorderDelay: 5 * time.Millisecond}
	var sent, lost, delivered, dups, both, overtaken int64
	for seed := range uint64(seeds) {
		nw := newNet(cfg, seed)
		c := nw.Connect(0, 1)
		for k := range pairs {
			t0 := sim.Time(k) * sim.Time(100*time.Millisecond)
			a := nw.Send(t0, c, simnet.Request)
			b := nw.Send(t0+sim.Time(time.Millisecond), c, simnet.Request)
			for _, s := range []simnet.Sent{a, b} {
				sent++
				switch s.Fate {
				case simnet.Lost:
					lost++
				case simnet.Delivered:
					delivered++
					if s.DupAt >= 0 {
						dups++
					}
				default:
					t.Fatalf("fate %v in datagram mode without partitions", s.Fate)
				}
			}
			if a.Fate == simnet.Delivered && b.Fate == simnet.Delivered {
				both++
				if b.At < a.At {
					overtaken++
				}
			}
		}
	}
	check := func(what string, k, n int64, p float64) {
		mean := float64(n) * p
		tol := 4 * math.Sqrt(float64(n)*p*(1-p))
		if math.Abs(float64(k)-mean) > tol {
			t.Errorf("%s: %d of %d, want %.0f ± %.0f (p=%v)", what, k, n, mean, tol, p)
		} else {
			t.Logf("%s: %d of %d, want %.0f ± %.0f", what, k, n, mean, tol)
		}
	}
	check("lost", lost, sent, loss)
	check("duplicated", dups, delivered, dup)
	check("reordered pairs", overtaken, both, reord*(1-reord))
}

// TestLatencyDistributions checks each distribution's support and mean.
func TestLatencyDistributions(t *testing.T) {
	ms := time.Millisecond
	const n = 20000
	cases := []struct {
		l        simnet.Latency
		lo, hi   time.Duration // support
		mean, sd float64       // expected mean and standard deviation, ns
	}{
		{simnet.Latency{Dist: simnet.Constant, Base: 3 * ms}, 3 * ms, 3 * ms, 3e6, 0},
		{simnet.Latency{Dist: simnet.Uniform, Base: ms, Spread: 4 * ms}, ms, 5 * ms, 3e6, 4e6 / math.Sqrt(12)},
		{simnet.Latency{Dist: simnet.Exponential, Base: ms, Spread: 2 * ms}, ms, time.Hour, 3e6, 2e6},
		{simnet.Latency{Dist: simnet.LogNormal, Base: ms, Spread: 2 * ms, Sigma: 0.5}, ms, time.Hour, 1e6 + 2e6*math.Exp(0.125), 2e6 * math.Sqrt((math.Exp(0.25)-1)*math.Exp(0.25))},
		{simnet.Latency{Dist: simnet.Constant, Base: ms, TailProb: 0.1, Tail: 10 * ms}, ms, 11 * ms, 2e6, 1e7 * math.Sqrt(0.09)},
	}
	for _, c := range cases {
		rng := sim.NewRand(1, 2)
		var sum float64
		for range n {
			d := c.l.Draw(rng)
			if d < c.lo || d > c.hi {
				t.Fatalf("%v: draw %v outside [%v, %v]", c.l.Dist, d, c.lo, c.hi)
			}
			sum += float64(d)
		}
		mean := sum / n
		// 5 standard errors, plus 1µs for rounding to microseconds.
		if tol := 5*c.sd/math.Sqrt(n) + 1e3; math.Abs(mean-c.mean) > tol {
			t.Errorf("%v: mean %.0fns, want %.0f ± %.0f", c.l.Dist, mean, c.mean, tol)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		cfg  simnet.Config
		want string
	}{
		{simnet.Config{RequestLoss: 1.5}, "net.request_loss=1.5 is out of range (allowed: 0..1)"},
		{simnet.Config{ResponseLoss: -0.1}, "net.response_loss"},
		{simnet.Config{ResponseLoss: math.NaN()}, "net.response_loss"},
		{simnet.Config{Duplicate: 0.1}, "needs net.mode=datagram"},
		{simnet.Config{Reorder: 0.1}, "net.reorder=0.1 needs net.mode=datagram"},
		{simnet.Config{Mode: simnet.Datagram, ReorderDelay: -1}, "net.reorder.delay=-1ns is negative (allowed: >= 0)"},
		{simnet.Config{DisconnectNotice: 2}, "net.disconnect_notice"},
		{simnet.Config{Latency: simnet.Latency{Base: -time.Second}}, "net.latency.base=-1s is negative"},
		{simnet.Config{Latency: simnet.Latency{TailProb: 3}}, "net.latency.tail_prob"},
		{simnet.Config{Links: []simnet.LinkLatency{{From: "p1", To: "b1", Latency: simnet.Latency{Spread: -1}}}}, "net.link.latency p1>b1.spread"},
		{simnet.Config{}, ""},
	}
	for _, c := range cases {
		err := c.cfg.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", c.cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: error %v, want one containing %q", c.cfg, err, c.want)
		}
	}
}

func TestLinkLatency(t *testing.T) {
	links, err := simnet.ParseLinkLatencies("p1>b1 constant base=5ms; b1>p1 uniform base=1ms spread=1ms")
	if err != nil {
		t.Fatal(err)
	}
	cfg := simnet.Config{Latency: simnet.Latency{Base: time.Millisecond}, Links: links}
	if err := cfg.CheckNodes(names); err != nil {
		t.Fatal(err)
	}
	nw := newNet(cfg, 1)
	c := nw.Connect(0, 1)
	if s := nw.Send(0, c, simnet.Request); s.At != sim.Time(5*time.Millisecond) {
		t.Errorf("p1>b1 arrives at %v, want 5ms", s.At)
	}
	if s := nw.Send(0, c, simnet.Response); s.At < sim.Time(time.Millisecond) || s.At > sim.Time(2*time.Millisecond) {
		t.Errorf("b1>p1 arrives at %v, want 1ms..2ms", s.At)
	}
	for _, bad := range []string{"p1 constant", "p1>b1", "p1>b1 gamma", "p1>b1 constant base=x", "p1>b1 constant speed=1"} {
		if _, err := simnet.ParseLinkLatencies(bad); err == nil || !strings.HasPrefix(err.Error(), "net.link.latency") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
	cfg.Links[0].From = "p9"
	if err := cfg.CheckNodes(names); err == nil || !strings.Contains(err.Error(), `unknown node "p9" (known: b1, p1)`) {
		t.Errorf("CheckNodes: %v", err)
	}
}

// TestFollow: a node that follows a host shares the host's partitions,
// and a message on the wire across a new cut of the host's link is
// dropped.
func TestFollow(t *testing.T) {
	nodes := []string{"p1", "b1", "b2", "c1"}
	nw := simnet.New(simnet.Config{Mode: simnet.TCP, Latency: simnet.Latency{Dist: simnet.Constant, Base: time.Millisecond}}, sim.NewRand(1, sim.StreamID("net")), nodes)
	nw.Follow(3, 1)
	c := nw.Connect(0, 3)
	if s := nw.Send(0, c, simnet.Request); s.Fate != simnet.Delivered {
		t.Fatalf("before the cut: %v", s.Fate)
	}
	s := nw.Send(0, c, simnet.Request)
	nw.Cut(0, 1)
	if !nw.Blocked(0, 3) || nw.Blocked(0, 2) {
		t.Fatalf("p1>c1 should follow p1>b1's cut, p1>b2 not")
	}
	if f := nw.Arrive(s.Tok); f != simnet.Partitioned {
		t.Fatalf("a message on the wire across the host's cut: %v", f)
	}
	nw.Heal(0, 1)
	nw.Follow(3, 2)
	c = nw.Connect(0, 3)
	nw.Cut(0, 1)
	if s := nw.Send(0, c, simnet.Request); s.Fate != simnet.Delivered {
		t.Fatalf("after the move to b2, b1's cut: %v", s.Fate)
	}
}

// TestConnectAux: a second client's connection on the same pair lives
// beside the first; each new connection abandons only its own kind's.
func TestConnectAux(t *testing.T) {
	nw := simnet.New(simnet.Config{Mode: simnet.TCP, Latency: simnet.Latency{Dist: simnet.Constant, Base: time.Millisecond}}, sim.NewRand(1, sim.StreamID("net")), names)
	p := nw.Connect(0, 1)
	c := nw.ConnectAux(0, 1)
	if !nw.Alive(p) || !nw.Alive(c) || p.Gen == c.Gen {
		t.Fatalf("both connections should live: %v %v", p, c)
	}
	p2 := nw.Connect(0, 1)
	if nw.Alive(p) || !nw.Alive(c) || !nw.Alive(p2) {
		t.Fatalf("a new main connection abandons only the old main one")
	}
	nw.Close(c)
	if nw.Alive(c) || !nw.Alive(p2) {
		t.Fatalf("closing the auxiliary connection closes only it")
	}
	if s := nw.Send(0, c, simnet.Request); s.Fate != simnet.ConnBroken {
		t.Fatalf("send on the closed auxiliary connection: %v", s.Fate)
	}
}
