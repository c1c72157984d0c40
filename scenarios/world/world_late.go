package world

import (
	"bytes"
	"time"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// The plan's "late" action (faults.Late): a request reaches its server a
// given time after the network would deliver it, and the server handles
// it even if its client closed the connection or a partition cut the
// link meanwhile (a retransmitted TCP segment on a server socket that
// never saw the close). The requests sent behind it on the connection
// wait behind it.

// lateRule is an armed late action.
type lateRule struct {
	typ            string // request type, "" for any
	n              int64
	client, server simnet.NodeID
	d              sim.Time
	// seen counts the link's requests of typ so far (typ != "").
	seen int64
	used bool
}

// lateConn is a connection whose deliveries in one direction wait behind
// a late message until until.
type lateConn struct {
	conn  simnet.Conn
	dir   simnet.Direction
	until sim.Time
}

// ArmLate arms a late rule ([faults.Late]).
func (t actuator) ArmLate(typ string, n int64, client, server string, d time.Duration) {
	if t.w.prearmed(t.i) {
		return
	}
	t.w.mf.lates = append(t.w.mf.lates, lateRule{typ: typ, n: n, client: t.w.nodeOf(client), server: t.w.nodeOf(server), d: sim.Time(d)})
}

// requestType is a request's type name as plan lines and scripts name it:
// its description up to '#' ("EndTxn", "Produce").
func requestType(m model.Message) string {
	d := m.AppendDescription(nil)
	if i := bytes.IndexAny(d, "# "); i >= 0 {
		d = d[:i]
	}
	return string(d)
}

// lateDelivery returns the arrival time of a message sent at now that the
// network would deliver at at: later when a late rule holds it or a late
// message holds its connection. A held request is marked late.
func (w *World) lateDelivery(now, at sim.Time, c simnet.Conn, dir simnet.Direction, wr *wire, from, to simnet.NodeID) sim.Time {
	mf := &w.mf
	for _, lc := range mf.lateConns {
		if lc.conn == c && lc.dir == dir && lc.until > at {
			at = lc.until
		}
	}
	if dir != simnet.Request || len(mf.lates) == 0 {
		return at
	}
	typ := ""
	for i := range mf.lates {
		r := &mf.lates[i]
		if r.used || r.client != c.Client || r.server != c.Server {
			continue
		}
		hit := r.typ == "" && r.n == wr.reqNo
		if r.typ != "" {
			if typ == "" {
				typ = requestType(wr.m)
			}
			if typ == r.typ {
				r.seen++
				hit = r.seen == r.n
			}
		}
		if !hit {
			continue
		}
		r.used = true
		wr.late = true
		at += r.d
		mf.lateConns = append(mf.lateConns, lateConn{conn: c, dir: dir, until: at})
		w.note(now, from, "holds "+string(wr.m.AppendDescription(nil))+" -> "+w.names[to]+" "+
			time.Duration(r.d).String()+" late: it arrives at "+at.String()+" whatever happens to its connection (plan: late)")
	}
	return at
}
