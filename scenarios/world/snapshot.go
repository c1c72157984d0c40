package world

import (
	"cmp"
	"errors"
	"reflect"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model/broker"

	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world/internal/snapshot"
	"github.com/idemsim/idemsim/scenarios/world/internal/store"
	"github.com/idemsim/idemsim/sim"
)

// Saved is a world's state saved at a ChoiceTime point by
// [ChoicePoint.Save] (a deep copy, internal/snapshot), with the event
// about to run; [Saved.Resume] runs a copy of it on, any number of times.
type Saved struct {
	w     *World
	prog  *snapshot.Program // how to copy w again (Save's); nil after Restore
	ev    Event
	seq   uint64
	Stats snapshot.Stats // the copy's allocations and bytes
}

// Bytes is what the saved state holds, in bytes: its copy's
// allocations (backing arrays to their capacity) and the program that
// copies it again (internal/snapshot.Program).
func (sv *Saved) Bytes() int64 { return int64(sv.Stats.Bytes + sv.Stats.Program) }

// ErrSettling is Save's answer at a point of a replicated run's settling
// (after its phases): an explorer replays a branch from there.
var ErrSettling = errors.New("scenarios: no save while replication settles")

// Snapshots copies worlds for one goroutine: setup and parameters stay
// shared (read only); the probe and the hash cache are the caller's.
type Snapshots struct{ c *snapshot.Copier }

// NewSnapshots returns a copier for [ChoicePoint.Save] and [Saved.Resume].
func NewSnapshots() *Snapshots {
	return &Snapshots{snapshot.New(reflect.TypeFor[Setup](), reflect.TypeFor[Resolved](), reflect.TypeFor[params.Values](), reflect.TypeFor[params.Config]())}
}

// Save saves the world's state at a ChoiceTime point, in the probe's call.
func (cp *ChoicePoint) Save(ss *Snapshots) (*Saved, error) {
	if r, ok := cp.w.repl.(*replState); cp.Kind != ChoiceTime || ok && r.until != 0 {
		return nil, ErrSettling
	}
	w, pr := cp.w, cp.w.probe
	w.probe.p, w.probe.cache = nil, nil // the probe and the hash cache stay out of the copy
	x, prog, st, err := snapshot.Record(ss.c, w)
	w.probe.p, w.probe.cache = pr.p, pr.cache
	return &Saved{w: x, prog: prog, ev: cp.ev, seq: cp.seq, Stats: st}, err
}

// Resume runs a copy of the saved world from its choice point to the end,
// as the run it was saved from went on; p watches the points after it.
func (sv *Saved) Resume(ss *Snapshots, p Probe) (*Result, error) {
	w, _, err := snapshot.FromProgram[World](ss.c, sv.prog) // nil after Restore or Branch: an error
	if w == nil {
		return nil, err
	}
	w.probe.p = p
	w.Handle(w.loop.Now(), 0, sv.ev) // the probe has seen this time
	return w.runRest(w.setup, cmp.Or(w.setup.MaxEvents, DefaultMaxEvents), true)
}

// Restore returns a copy of the saved state, for one Branch.
func (sv *Saved) Restore(ss *Snapshots) (*Saved, error) {
	w, st, err := snapshot.FromProgram[World](ss.c, sv.prog)
	return &Saved{w: w, ev: sv.ev, seq: sv.seq, Stats: st}, err
}

// Branch runs the saved world itself on (it is used up: Restore a copy
// for each branch) under plan, the saved run's plan with actions added
// at or after the saved time (a fault chosen there, after the plan's own
// actions of their times) or message rules at 0s (faults.ByNumber), as
// a run of plan from the start goes on: the added actions are scheduled
// before the pending events at their times, the added rules armed as
// that run arms them at setup (the caller makes sure a rule's message
// comes after the saved point), the plan's own actions and rules
// renumbered; p watches the points after it.
func (sv *Saved) Branch(p Probe, hc *HashCache, plan string) (*Result, error) {
	np, err := faults.Parse(plan)
	w := sv.w
	if sv.w, sv.prog = nil, nil; err != nil || w == nil || np.End != w.plan.End {
		return nil, cmp.Or(err, errors.New("scenarios: a branch's plan ends elsewhere, or its state is used up"))
	}
	old, now, idx, added := w.plan.Actions, w.loop.Now(), make([]uint64, 0, len(np.Actions)), []int(nil)
	for i, a := range np.Actions {
		if j := len(idx); j < len(old) && a.Equal(old[j]) {
			idx = append(idx, uint64(i))
		} else if added = append(added, i); sim.Time(a.At) < now && (a.At != 0 || !faults.ByNumber(a.Action)) {
			return nil, errors.New("scenarios: a branch's plan adds an action before its point: " + a.String())
		}
	}
	if len(idx) < len(old) {
		return nil, errors.New("scenarios: a branch's plan lacks an action of its saved run")
	}
	pre := make([]bool, len(np.Actions))
	for j, i := range idx {
		pre[i] = w.prearmed(j)
	}
	w.mf.prearmed, w.plan, w.probe.p, w.probe.cache = pre, np, p, hc.c // hc: the caller's (not nil)
	w.loop.Requeue(sv.seq, sv.ev, sv.ev.bg)
	w.loop.Edit(func(ev *Event) {
		if ev.kind == evFault || ev.kind == evResume || ev.kind == evUnstall {
			ev.n = idx[ev.n]
		}
	})
	w.reorderRules(idx)
	zero := int64(0)
	for _, i := range added {
		if a := np.Actions[i]; sim.Time(a.At) < now { // a 0s rule: prearm's, and its 0s event, which prints nothing
			a.Apply(armer{actuator{w: w, i: i}})
			pre[i], zero = true, zero+1
			continue
		}
		w.loop.AtBefore(sim.Time(np.Actions[i].At), Event{kind: evFault, n: uint64(i)}, func(ev Event) bool { return ev.kind != evFault && ev.kind != evMetaFlap })
	}
	w.reorderRules(nil)
	w.loop.Count(zero)
	return w.runRest(w.setup, cmp.Or(w.setup.MaxEvents, DefaultMaxEvents), true)
}

// reorderRules renumbers the armed message rules' plan actions by idx
// (an old action's index in the new plan), or with idx nil orders them
// as a run of the plan from the start arms them (store.Rearm).
func (w *World) reorderRules(idx []uint64) {
	zero := func(a int32) bool { return w.plan.Actions[a].At == 0 }
	act := func(r *dropRule) *int32 { return &r.act }
	store.Rearm(w.drops, act, idx, zero)
	store.Rearm(w.mf.delays, act, idx, zero)
	store.Rearm(w.mf.dups, act, idx, zero)
	store.Rearm(w.mf.lates, func(r *lateRule) *int32 { return &r.act }, idx, zero)
	for i := range w.nodes {
		if b := w.nodes[i].broker; b != nil {
			b.EditRejects(func(rs []broker.RejectRule) {
				store.Rearm(rs, func(r *broker.RejectRule) *int32 { return &r.Action }, idx, zero)
			})
		}
	}
}
