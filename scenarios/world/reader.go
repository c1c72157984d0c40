package world

import (
	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// A Reader reads a run's observation stream beside the trace, the
// counters and the checkers: the explain log (package
// scenarios/explain), the history (package internal/history), a test's.
// A [Spec] asks for readers through [Spec.Readers]; the World makes each
// one from the run's [Layout] before the first observation, hands it
// every observation in order, and tells it the run's end. A reader never
// calls back into the World, and a run with readers is the same run
// without them.
type Reader interface {
	model.Observer
	// Held is the number of entries the reader holds, counted in the
	// run's state ([Spec.MaxState]); 0 for a reader whose memory the
	// bound need not cover.
	Held() int64
	// End is told the run's end, after its last observation.
	End(e *RunEnd)
}

// MakeReader makes a run's reader from its layout.
type MakeReader func(l *Layout) Reader

// RunEnd is what a [Reader] is told when the run ends.
type RunEnd struct {
	// At is when the run ended; PlanEnd when its fault phase ended.
	At, PlanEnd sim.Time
	// Violations are the run's verdicts, as the [Result] reports them.
	Violations []check.Violation
}

// Layout is what the readers of a run's observation stream may know of
// the world they read: its nodes, by the ids observations carry (Obs.Node,
// Obs.Peer), and the plan whose actions ObsFault observations index.
type Layout struct {
	// Names are the node names by node id: the producer instances p1..,
	// the brokers b1..bN, the coordinators, the controller.
	Names []string
	// Brokers are the brokers' node ids, b1 first.
	Brokers []int32
	// Apps is the number of applications (app0, app1, ...).
	Apps int
	// Instances are the producer instances, by node id (they take the
	// first ids, in the order the scenario added them).
	Instances []InstanceLayout
	// Servers marks the servers' node ids (brokers, coordinators, the
	// controller) in a replicated run; nil otherwise.
	Servers []bool
	// Partitions is the topic's partition count.
	Partitions int32
	// Plan is the run's fault plan (ObsFault's N indexes its actions).
	Plan *faults.Plan
}

// InstanceLayout is one producer instance of a [Layout].
type InstanceLayout struct {
	// Name is the instance's node name (p1, p2, ...).
	Name string
	// App is the application the instance belongs to.
	App int32
	// Transactional reports whether the instance runs transactions (a
	// transactional.id and transaction.records > 0).
	Transactional bool
}

// layout returns the run's layout, made once the node table and the plan
// are set.
func (w *World) layout() *Layout {
	l := &Layout{Names: w.names, Apps: len(w.apps), Partitions: int32(len(w.topo.Leaders)), Plan: &w.plan}
	for _, b := range w.brokerNode {
		l.Brokers = append(l.Brokers, int32(b))
	}
	for _, in := range w.instances {
		l.Instances = append(l.Instances, InstanceLayout{Name: in.name, App: in.app.id,
			Transactional: in.pcfg.TransactionRecords > 0 && in.pcfg.TransactionalID != ""})
	}
	if w.repl.replicated() {
		l.Servers = make([]bool, len(w.nodes))
		for i := range w.nodes {
			l.Servers[i] = w.isServer(simnet.NodeID(i))
		}
	}
	return l
}
