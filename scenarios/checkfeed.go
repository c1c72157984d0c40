package scenarios

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// checkFeed is a temporary bridge from the observation stream to the
// model checker.
type checkFeed struct {
	c *model.Checker
}

func newCheckFeed(w *World, cfg model.CheckerConfig) *checkFeed {
	return &checkFeed{c: model.NewCheckerWith(cfg)}
}

func (f *checkFeed) Observe(o *model.Obs) {
	switch o.Kind {
	case model.ObsAppSend:
		f.c.OnSend()
	case model.ObsOutcome:
		f.c.OnOutcome(o.Outcome)
	case model.ObsVerdict:
		r := &o.Result
		if r.Duplicate {
			var orig *model.LogEntry
			if o.OrigFound {
				e := o.Orig
				orig = &e
			}
			f.c.OnDuplicate(o.At, &o.Batch, orig)
		} else if r.Err == model.ErrNone {
			e := &model.LogEntry{FirstOffset: r.FirstOffset, LastOffset: r.LastOffset, Batch: o.Batch, AppendedAt: o.At, CoordinatorEpoch: -1}
			f.c.OnAppend(o.At, e)
		}
	case model.ObsMarker:
		if o.Err == model.ErrNone {
			f.c.OnMarker(o.At, o.Partition, o.PID, o.Marker)
		}
	case model.ObsEpoch:
		if o.Err == model.ErrNone {
			f.c.OnEpochAssigned(o.At, o.PID, o.Epoch)
		}
	case model.ObsStateCheck:
		f.c.OnStateCheck(o.At, o.Partition, o.Text)
	}
}

func (f *checkFeed) finish(w *World, end sim.Time, stop sim.StopReason) (model.Counts, []Violation) {
	var logs [][]model.LogEntry
	for p := range w.topo.Leaders {
		logs = append(logs, w.nodes[w.brokerNode[w.topo.Leaders[p]]].broker.Partition(int32(p)).Log())
	}
	counts, vs := f.c.Finish(end, logs, w.pending())
	out := make([]Violation, 0, len(vs))
	for _, v := range vs {
		out = append(out, Violation{Invariant: v.Invariant, Detail: v.Detail, AtNs: int64(v.At)})
	}
	for _, in := range w.instances {
		if fe := in.prod.Fatal(); fe != model.ErrNone && !w.stats.zombie(int32(in.node)) {
			out = append(out, Violation{Invariant: model.LiveProd, AtNs: int64(end),
				Detail: fmt.Sprintf("spurious fatal: instance %s stopped with %s while no newer instance of its application existed", in.name, fe)})
		}
	}
	if stop == sim.StopEventLimit || stop == sim.StopTimeLimit {
		out = append(out, Violation{Invariant: model.LiveProd, AtNs: int64(end),
			Detail: fmt.Sprintf("run did not settle: stopped at %s (%s), the fault plan ended at %s", end, stop, w.planEnd)})
	}
	return counts, out
}
