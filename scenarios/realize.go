package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
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

// explainState is the World's state for realized plans and the event log.
type explainState struct {
	// realized are the random losses drawn so far, as plan actions.
	realized []simnet.Action
	// muted: fault.realized is set; random losses are drawn and ignored.
	muted bool
	// rejects are the armed reject actions.
	rejects []rejectRule
	// cur is the produce request the broker is handling.
	cur struct {
		client, server simnet.NodeID
		reqNo          int64
		batches        int
	}
	// log is the run's event log, when Spec.Record is set.
	log *Log
	// sendAt maps a message id to its send entry in log.
	sendAt map[uint64]int
}

// rejectRule is an armed "reject N CLIENT>SERVER ERROR" action.
type rejectRule struct {
	n              int64
	client, server simnet.NodeID
	err            model.ErrCode
	part           int32 // -1: every batch
	used           bool
}

// rejectErrors are the errors a reject action may name: retriable errors
// after which the broker has appended nothing.
var rejectErrors = []model.ErrCode{model.ErrNotEnoughReplicas, model.ErrNotLeaderOrFollower}

// initExplain reads fault.realized and starts the event log when asked.
func (w *World) initExplain(spec Spec) {
	if w.vals.Bool("fault.realized") {
		w.ex.muted = true
		w.nw.MuteLoss()
	}
	if spec.Record {
		w.ex.log = &Log{Nodes: slices.Clone(w.names)}
		for _, a := range w.apps {
			w.ex.log.Apps = append(w.ex.log.Apps, fmt.Sprintf("app%d", a.id))
		}
		w.ex.sendAt = make(map[uint64]int)
	}
}

// checkRejects checks the plan's reject actions against the world: a
// producer's link to the broker, an allowed error.
func (w *World) checkRejects() error {
	for i := range w.plan.Actions {
		a := &w.plan.Actions[i]
		if a.Kind != simnet.Reject {
			continue
		}
		if w.instanceOf(w.nodeOf(a.From)) == nil || w.nodeOf(a.To) != w.brokerID {
			return fmt.Errorf("line %d: reject link %s>%s must go from a producer to the broker b1", a.Line, a.From, a.To)
		}
		if c, ok := model.ParseErrCode(a.Code); !ok || !slices.Contains(rejectErrors, c) {
			names := make([]string, len(rejectErrors))
			for j, e := range rejectErrors {
				names[j] = e.String()
			}
			return fmt.Errorf("line %d: reject error %q is not allowed (allowed: %s)", a.Line, a.Code, strings.Join(names, ", "))
		}
	}
	return nil
}

// armReject arms a reject action.
func (w *World) armReject(a *simnet.Action) {
	c, _ := model.ParseErrCode(a.Code)
	w.ex.rejects = append(w.ex.rejects, rejectRule{n: a.N, client: w.nodeOf(a.From), server: w.nodeOf(a.To), err: c, part: a.Part})
}

// handling records the produce request the broker is about to handle.
func (w *World) handling(wr *wire, req *model.ProduceRequest, c simnet.Conn) {
	w.ex.cur.client, w.ex.cur.server, w.ex.cur.reqNo, w.ex.cur.batches = c.Client, c.Server, wr.reqNo, len(req.Batches)
}

// transient decides whether the broker answers the current request's
// batch of partition part with a transient error, from the plan's rejects
// or the broker.transient_error draw (always made), and sets r if so. A
// random error is recorded for the realized plan.
func (w *World) transient(part int32, r *model.AppendResult) bool {
	hit := sim.Chance(w.bs.rng, w.bs.transientPPM)
	cur := &w.ex.cur
	for i := range w.ex.rejects {
		rr := &w.ex.rejects[i]
		if !rr.used && rr.n == cur.reqNo && rr.client == cur.client && rr.server == cur.server && (rr.part < 0 || rr.part == part) {
			if rr.part >= 0 {
				rr.used = true
			}
			*r = model.AppendResult{Err: rr.err, FirstOffset: -1, LastOffset: -1, Reason: "plan: reject"}
			return true
		}
	}
	if !hit || w.ex.muted {
		return false
	}
	a := simnet.Action{Kind: simnet.Reject, N: cur.reqNo, From: w.names[cur.client], To: w.names[cur.server], Code: model.ErrNotEnoughReplicas.String(), Part: -1}
	if cur.batches > 1 {
		a.Part = part
	}
	w.ex.realized = append(w.ex.realized, a)
	*r = model.AppendResult{Err: model.ErrNotEnoughReplicas, FirstOffset: -1, LastOffset: -1, Reason: "transient: in-sync replicas below min.insync.replicas"}
	return true
}

// realizedPlan returns the run's plan with its recorded random losses
// added as actions at 0s, after the plan's own 0s actions.
func (w *World) realizedPlan() simnet.Plan {
	p := simnet.Plan{End: w.plan.End}
	i := 0
	for i < len(w.plan.Actions) && w.plan.Actions[i].At == 0 {
		i++
	}
	p.Actions = slices.Concat(w.plan.Actions[:i], w.ex.realized, w.plan.Actions[i:])
	for j := range p.Actions {
		p.Actions[j].Line = 0
	}
	return p
}

// RandomSources are the parameters whose draws a realized plan writes out.
var RandomSources = []string{"net.request_loss", "net.response_loss", "broker.transient_error"}

// RealizedSets returns sets plus fault.realized=true when any of the
// run's random loss sources is on: the sets that replay a realized plan.
func RealizedSets(r *Result, sets []KV) []KV {
	for _, p := range r.Params {
		if slices.Contains(RandomSources, p.Key) && p.Value != "0" {
			return append(slices.Clone(sets), KV{Key: "fault.realized", Value: "true"})
		}
	}
	return slices.Clone(sets)
}
