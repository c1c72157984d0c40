package check

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// liveProd is LIVE-PROD: the run converges. It reports, at the end of the
// run and in this order:
//
//  1. records the applications sent that were neither acknowledged nor
//     definitively failed (the pending count at ObsRunEnd);
//  2. each producer instance, in node-id order, whose latest fatal note
//     stands at the end while no later instance of its application (a
//     larger node id) ever became active: a spurious fatal, since nothing
//     fenced it (an instance that restarts starts afresh);
//  3. a run stopped by one of the simulator's budgets (the event budget,
//     the time horizon, the state budget) instead of draining, saying
//     which ([StopDetail]): its verdicts stand for the run so far, and
//     whether it would have settled is unknown;
//  4. a run in which records were sent and none was acknowledged or
//     reported failed: nothing was delivered (every record abandoned or
//     pending), which is no pass whatever else held (fault.count=10000
//     crashing every instance, say). A run whose records all failed told
//     the application so: that is an outcome, not a hang.
type liveProd struct {
	cfg Config
	lv  *logView
	// sent counts the applications' sends.
	sent int64
	// insts holds, per node id, what the stream said of producer
	// instances.
	insts []instState

	end     sim.Time
	pending int64
	stop    string
	planEnd sim.Time
}

type instState struct {
	started bool
	app     int32
	active  bool
	// fatal is the error of the instance's latest fatal note, or ErrNone.
	fatal model.ErrCode
}

func newLiveProd() invariant { return &liveProd{} }

func (l *liveProd) reset(cfg Config, lv *logView) {
	*l = liveProd{cfg: cfg, lv: lv, insts: truncated(l.insts)}
}

func (l *liveProd) Name() string { return LiveProd }

// inst returns node's state, growing the table (nil for node < 0).
func (l *liveProd) inst(node int32) *instState {
	if node < 0 {
		return nil
	}
	for int(node) >= len(l.insts) {
		l.insts = append(l.insts, instState{})
	}
	return &l.insts[node]
}

func (l *liveProd) Observe(o *model.Obs) {
	switch o.Kind {
	case model.ObsAppSend:
		l.sent++
	case model.ObsStart:
		if in := l.inst(o.Node); in != nil {
			in.started, in.app, in.fatal = true, o.App, model.ErrNone
		}
	case model.ObsRestart:
		if in := l.inst(o.Node); in != nil {
			in.fatal = model.ErrNone
		}
	case model.ObsActive:
		if in := l.inst(o.Node); in != nil {
			in.active = true
		}
	case model.ObsNote:
		if o.NoteKind == model.NoteFatal {
			if in := l.inst(o.Node); in != nil {
				in.fatal = o.Err
			}
		}
	case model.ObsRunEnd:
		l.end, l.pending, l.stop, l.planEnd = o.At, o.N, o.Text, o.Until
	}
}

func (l *liveProd) reads() []model.ObsKind {
	return []model.ObsKind{model.ObsAppSend, model.ObsStart, model.ObsRestart, model.ObsActive, model.ObsNote, model.ObsRunEnd}
}

func (l *liveProd) Finish() []Violation {
	var v []Violation
	if l.pending > 0 {
		v = append(v, violation(LiveProd, l.end, fmt.Sprintf("%d records still unresolved at the end of the run", l.pending)))
	}
	for n := range l.insts {
		in := &l.insts[n]
		if !in.started || in.fatal == model.ErrNone || l.fenced(n) {
			continue
		}
		v = append(v, violation(LiveProd, l.end, fmt.Sprintf("spurious fatal: instance %s stopped with %s while no newer instance of its application existed", l.cfg.name(int32(n)), in.fatal)))
	}
	if d := StopDetail(l.stop); d != "" {
		v = append(v, violation(LiveProd, l.end, fmt.Sprintf("run stopped at %s (%s): %s; the fault plan ended at %s", l.end, l.stop, d, l.planEnd)))
	}
	if l.sent > 0 {
		if l.lv.recs.acked == 0 && l.lv.recs.failed == 0 {
			v = append(v, violation(LiveProd, l.end, fmt.Sprintf("nothing delivered: %d records sent, none acknowledged or failed (abandoned or pending)", l.sent)))
		}
	}
	return v
}

// fenced reports whether a later instance of node n's application became
// active: n is then a zombie and its fatal error is expected.
func (l *liveProd) fenced(n int) bool {
	for _, o := range l.insts[n+1:] {
		if o.started && o.app == l.insts[n].app && o.active {
			return true
		}
	}
	return false
}
