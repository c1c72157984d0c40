package net

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/idemsim/idemsim/sim"
)

// TestTakeChanged: across every method of the network called in random
// order, in both transport modes, a call that changes the network's
// state (its fields or its random streams) leaves it marked changed
// (TakeChanged), so that a state hash that walks it again only then sees
// every change.
func TestTakeChanged(t *testing.T) {
	for _, mode := range []Mode{TCP, Datagram} {
		cfg := Config{Mode: mode, Latency: Latency{Base: time.Millisecond, Spread: time.Millisecond, TailProb: 0.1, Tail: 5 * time.Millisecond},
			RequestLoss: 0.2, ResponseLoss: 0.2, DisconnectNotice: 0.5, ServerLoss: 0.1}
		if mode == Datagram {
			cfg.Duplicate, cfg.Reorder, cfg.ReorderDelay, cfg.DisconnectNotice = 0.2, 0.2, time.Millisecond, 0
		}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		pcg, srvPCG := rand.NewPCG(1, 2), rand.NewPCG(3, 4)
		nw := New(cfg, rand.New(pcg), []string{"p1", "p2", "b1", "b2"})
		state := func() string {
			a, _ := pcg.MarshalBinary()
			b, _ := srvPCG.MarshalBinary()
			return fmt.Sprint(nw.cfg, nw.conns, nw.lat, nw.cuts, nw.blocked, nw.reqPPM, nw.respPPM, nw.dupPPM, nw.reorderPPM, nw.noticePPM,
				nw.broken, nw.muted, nw.server, nw.srvLossPPM, nw.follow, a, b)
		}
		r := sim.NewRand(5, 1)
		var conns []Conn
		node := func() NodeID { return NodeID(r.IntN(4)) }
		conn := func() Conn {
			if len(conns) == 0 {
				return Conn{Client: 0, Server: 2, Gen: 1}
			}
			return conns[r.IntN(len(conns))]
		}
		ops := []struct {
			name string
			do   func(now sim.Time)
		}{
			{"Connect", func(sim.Time) { conns = append(conns, nw.Connect(node(), node())) }},
			{"ConnectAux", func(sim.Time) { conns = append(conns, nw.ConnectAux(node(), node())) }},
			{"Close", func(sim.Time) { nw.Close(conn()) }},
			{"Alive", func(sim.Time) { nw.Alive(conn()) }},
			{"Send", func(now sim.Time) { nw.Send(now, conn(), Direction(r.IntN(2))) }},
			{"SendLost", func(now sim.Time) { nw.SendLost(now, conn(), Direction(r.IntN(2))) }},
			{"Arrive", func(now sim.Time) { nw.Arrive(nw.Send(now, conn(), Direction(r.IntN(2))).Tok) }},
			{"Break", func(sim.Time) { nw.Break(conn()) }},
			{"TakeNotices", func(now sim.Time) { nw.TakeNotices(now) }},
			{"Delay", func(sim.Time) { nw.Delay(node(), node()) }},
			{"DelayWith", func(sim.Time) { nw.DelayWith(sim.NewRand(9, 9), node(), node()) }},
			{"Cut", func(sim.Time) { nw.Cut(node(), node()) }},
			{"Heal", func(sim.Time) { nw.Heal(node(), node()) }},
			{"Blocked", func(sim.Time) { nw.Blocked(node(), node()) }},
			{"Follow", func(sim.Time) { nw.Follow(3, 2) }},
			{"SetServers", func(sim.Time) { nw.SetServers([]bool{false, false, true, true}, rand.New(srvPCG)) }},
			{"MuteLoss", func(sim.Time) { nw.MuteLoss() }},
			{"Quiet", func(sim.Time) { nw.Quiet() }},
		}
		if !nw.TakeChanged() {
			t.Fatalf("%v: a new network is not marked changed", mode)
		}
		marked := 0
		for i := range 3000 {
			op := ops[r.IntN(len(ops))]
			if op.name == "Quiet" && r.IntN(50) > 0 {
				continue
			}
			before := state()
			op.do(sim.Time(i) * sim.Time(time.Millisecond))
			changed := nw.TakeChanged()
			if !changed && state() != before {
				t.Fatalf("%v: step %d: %s changed the network without marking it", mode, i, op.name)
			}
			if changed {
				marked++
			}
		}
		if marked == 0 || nw.TakeChanged() {
			t.Fatalf("%v: %d calls marked, and TakeChanged does not clear the mark", mode, marked)
		}
	}
}
