package repl

import (
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/broker"
	"github.com/idemsim/idemsim/model/controller"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// A replicated world costs events while nothing happens: every follower
// long-polls its leader (an empty fetch parked replica.fetch.wait.max.ms,
// 500 ms, at the leader, answered empty, sent again) and every broker
// heartbeats the controller every broker.heartbeat.interval.ms (2 s):
// about 22 events per simulated second with one partition and three
// brokers. A run that waits for a timeout of days would spend its event
// budget on them.
//
// So when replication is quiet ([Quiet]) and nothing else is due for a
// while, the world carries it across that span in one step: it moves
// every replication timer and message on the wire later by the span,
// keeping their order, and every time the replicas and the controller
// recorded with them ([Shift]). The replication then runs on from where
// it was, the span later.
//
// That leaves every observable thing as it was: quiet means that no cycle
// in the span could change anything (see [Quiet]). What changes: the
// idle cycles of the span are not run, so they neither count as events
// nor draw from the replication's random stream; the replication
// latencies drawn after the span are the ones the span's cycles would
// have drawn, as with another seed. Replication messages have no trace
// lines, so the trace is the same up to the span.

// MinSpan is the shortest span carried in one step while the run is on:
// after a span the run goes on with other replication latencies (see
// above), so shorter spans, such as the catalogue's runs have (timeouts
// of seconds to two minutes), run cycle by cycle and keep their traces;
// a span pays when a timer is set to hours or days.
const MinSpan = time.Minute

// SettleMinSpan is the shortest span carried in one step while the run
// settles: nothing after the settling draws from the replication's
// stream, so carrying a span changes nothing but the event count.
const SettleMinSpan = time.Second

// Margin is left between the end of a carried span and the next event of
// anything else: the replication runs its last cycles before that event
// one by one.
const Margin = time.Second

// Off turns carrying idle replication in one step off, for tests that
// compare runs with and without it (world.SetIdleReplicationSkip).
var Off bool

// Cluster is what [Quiet] and [Shift] look at: the brokers by broker
// index, their node ids and the controller's, and the network.
type Cluster struct {
	Brokers    []*broker.Broker
	Ctl        *controller.Controller
	Net        *simnet.Network
	BrokerNode []simnet.NodeID
	CtlNode    simnet.NodeID
}

// Quiet reports whether no replication cycle could change anything, the
// World having checked that no server is crashed, paused, stalled or
// drifting and that only [IdleMsg] messages are on the replication wire:
//
//   - no fault can strike: no link between servers is cut, the servers'
//     loss rate is 0, and messages between servers are never late
//     enough for a heartbeat gap to reach broker.session.timeout.ms (the
//     heartbeat interval plus twice the largest [simnet.Latency.Bound] of
//     a server link stays below it);
//   - the controller has nothing to do ([controller.Controller.Quiet]),
//     every broker applied its latest publication and is quiet on its
//     own ([broker.Broker.ReplQuiet]);
//   - every partition's leader is the controller's, at its epochs, and
//     every follower fetches from it at that epoch with the leader's log
//     end and high watermark: each fetch is empty and keeps it in the ISR
//     (a follower whose last fetch was at the log end is caught up
//     whatever the time, Replica.scala isCaughtUp).
func Quiet(c Cluster) bool {
	if c.Net.ServerLossPPM() != 0 || !c.Ctl.Quiet() {
		return false
	}
	var slowest time.Duration
	for i := -1; i < len(c.BrokerNode); i++ {
		a := c.CtlNode
		if i >= 0 {
			a = c.BrokerNode[i]
		}
		for j := -1; j < len(c.BrokerNode); j++ {
			b := c.CtlNode
			if j >= 0 {
				b = c.BrokerNode[j]
			}
			if a != b {
				if c.Net.Blocked(a, b) {
					return false
				}
				slowest = max(slowest, c.Net.LatencyBound(a, b))
			}
		}
	}
	if c.Brokers[0].HeartbeatInterval()+2*slowest >= c.Ctl.SessionTimeout() {
		return false
	}
	for _, b := range c.Brokers {
		if !b.ReplQuiet() || b.MetadataOffset() != c.Ctl.Offset() {
			return false
		}
	}
	for _, st := range c.Ctl.Partitions() {
		lb := c.Brokers[st.Leader]
		reg, ok := lb.LeaderRegistration(st.Partition)
		if !ok || reg.LeaderEpoch != st.LeaderEpoch || reg.PartitionEpoch != st.PartitionEpoch {
			return false
		}
		ll := lb.ReplicaLog(st.Partition)
		for _, f := range st.Replicas {
			if f == st.Leader {
				continue
			}
			l, e, fetching := c.Brokers[f].Following(st.Partition)
			fl := c.Brokers[f].ReplicaLog(st.Partition)
			if !fetching || l != st.Leader || e != st.LeaderEpoch || fl.LogEndOffset() != ll.LogEndOffset() || fl.HighWatermark() != ll.HighWatermark() {
				return false
			}
		}
	}
	return true
}

// IdleMsg reports whether m is a message of idle replication: a fetch,
// its answer or a heartbeat or its answer.
func IdleMsg(m model.Message) bool {
	switch m.(type) {
	case *model.FetchRequest, *model.FetchResponse, *model.BrokerHeartbeatRequest, *model.BrokerHeartbeatResponse:
		return true
	}
	return false
}

// Span returns how far to carry quiet replication at now, 0 for not at
// all: up to Margin before end, the next event of anything else (a
// client's timer, a fault, the plan's end, the horizon, the end of the
// settling), if that is at least MinSpan away (SettleMinSpan while
// settling). It is 0 while [Off].
func Span(now, end sim.Time, settling bool) time.Duration {
	if Off {
		return 0
	}
	d, least := end.Sub(now)-Margin, MinSpan
	if settling {
		least = SettleMinSpan
	}
	if d < least {
		return 0
	}
	return d
}

// Shift moves every time the controller and the brokers recorded d later
// ([controller.Controller.ShiftTimes], [broker.Broker.ShiftReplTimes]).
func Shift(c Cluster, d time.Duration) {
	c.Ctl.ShiftTimes(d)
	for _, b := range c.Brokers {
		b.ShiftReplTimes(d)
	}
}
