package world

import (
	"slices"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/params"
)

// A run's realized plan is its fault plan plus every loss its random
// sources drew, written out as plan actions: a lost request or response
// (net.request_loss, net.response_loss) as "0s drop request|response N
// CLIENT>SERVER", a transient broker error (broker.transient_error) as
// "0s reject N CLIENT>SERVER NOT_ENOUGH_REPLICAS [partition K]". Both are
// armed at 0s and fire by request count, so they hit the same message.
//
// Replaying the realized plan with fault.realized=true reproduces the run:
// the random sources still draw, so every random stream stays aligned
// (latencies, notices and the rest come out the same), but what they
// draw counts for nothing; the planned drops and rejects stand for it.
// A planned drop makes its network loss draw too ([simnet.Network.SendLost]),
// and a planned reject its broker draw, so removing one while shrinking
// shifts no later draw either.

// realizer reads the observation stream and records the random losses
// drawn so far as plan actions.
type realizer struct {
	names    []string
	realized []faults.Timed
}

// Observe records a random network loss or a random transient error.
func (r *realizer) Observe(o *model.Obs) {
	switch {
	case o.Kind == model.ObsSent && o.Random:
		client, server, dir := o.Node, o.Peer, simnet.Request
		if o.Flag {
			client, server, dir = o.Peer, o.Node, simnet.Response
		}
		r.realized = append(r.realized, faults.Timed{Action: faults.Drop{Dir: dir, N: o.N, From: r.names[client], To: r.names[server]}})
	case o.Kind == model.ObsVerdict && o.Random:
		a := faults.Reject{N: o.N, From: r.names[o.Peer], To: r.names[o.Node], Code: model.ErrNotEnoughReplicas.String(), Part: -1}
		if o.Flag {
			a.Part = o.Batch.Partition
		}
		r.realized = append(r.realized, faults.Timed{Action: a})
	}
}

// initExplain reads fault.realized and starts the realized-plan recorder
// and the spec's readers.
func (w *World) initExplain(s *Setup) {
	if w.cfg.Fault.Realized {
		w.nw.MuteLoss()
	}
	if s.Realize {
		w.realized = &realizer{names: w.names}
		w.obs = append(w.obs, w.realized)
	}
	if len(s.Readers) > 0 {
		l := w.layout()
		for _, mk := range s.Readers {
			r := mk(l)
			w.readers = append(w.readers, r)
			w.obs = append(w.obs, r)
		}
	}
}

// realizedPlan returns the run's plan with its recorded random losses
// added as actions at 0s, after the plan's own 0s actions.
func (w *World) realizedPlan() faults.Plan {
	p := faults.Plan{End: w.plan.End}
	i := 0
	for i < len(w.plan.Actions) && w.plan.Actions[i].At == 0 {
		i++
	}
	p.Actions = slices.Concat(w.plan.Actions[:i], w.realized.realized, w.plan.Actions[i:])
	for j := range p.Actions {
		p.Actions[j].Line = 0
	}
	return p
}

// RandomSources are the parameters whose draws a realized plan writes out.
var RandomSources = []string{"net.request_loss", "net.response_loss", "broker.transient_error"}

// RealizedSets returns sets plus fault.realized=true when any of the
// run's random loss sources is on: the sets that replay a realized plan.
func RealizedSets(r *Result, sets []params.KV) []params.KV {
	for _, p := range r.Params {
		if slices.Contains(RandomSources, p.Key) && p.Value != "0" {
			return append(slices.Clone(sets), params.KV{Key: "fault.realized", Value: "true"})
		}
	}
	return slices.Clone(sets)
}
