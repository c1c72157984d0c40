package world

import (
	"cmp"
	"errors"
	"reflect"

	"github.com/idemsim/idemsim/faults"

	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world/internal/snapshot"
	"github.com/idemsim/idemsim/sim"
)

// Saved is a world's state saved at a ChoiceTime point by
// [ChoicePoint.Save] (a deep copy, internal/snapshot), with the event
// about to run; [Saved.Resume] runs a copy of it on, any number of times.
type Saved struct {
	w     *World
	ev    Event
	seq   uint64
	Stats snapshot.Stats // the copy's allocations and bytes
}

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

func (ss *Snapshots) copyWorld(w *World) (*World, snapshot.Stats, error) {
	pr := w.probe
	w.probe.p, w.probe.cache = nil, nil
	defer func() { w.probe.p, w.probe.cache = pr.p, pr.cache }()
	return snapshot.Copy(ss.c, w)
}

// Save saves the world's state at a ChoiceTime point, in the probe's call.
func (cp *ChoicePoint) Save(ss *Snapshots) (*Saved, error) {
	if r, ok := cp.w.repl.(*replState); cp.Kind != ChoiceTime || ok && r.until != 0 {
		return nil, ErrSettling
	}
	w, st, err := ss.copyWorld(cp.w)
	return &Saved{w: w, ev: cp.ev, seq: cp.seq, Stats: st}, err
}

// Resume runs a copy of the saved world from its choice point to the end,
// as the run it was saved from went on; p watches the points after it.
func (sv *Saved) Resume(ss *Snapshots, p Probe) (*Result, error) {
	w, _, err := ss.copyWorld(sv.w)
	if w == nil {
		return nil, err
	}
	w.probe.p = p
	w.Handle(w.loop.Now(), 0, sv.ev) // the probe has seen this time
	return w.runRest(w.setup, cmp.Or(w.setup.MaxEvents, DefaultMaxEvents), true)
}

// Restore returns a copy of the saved state, for one Branch.
func (sv *Saved) Restore(ss *Snapshots) (*Saved, error) {
	w, st, err := ss.copyWorld(sv.w)
	return &Saved{w: w, ev: sv.ev, seq: sv.seq, Stats: st}, err
}

// Branch runs the saved world itself on (it is used up: Restore a copy
// for each branch) under plan, the saved run's plan with actions added
// at or after the saved time (a fault chosen there, after the plan's own
// actions of their times), as a run of plan from the start goes on: the
// added actions are scheduled before the pending events at their times,
// the plan's own actions renumbered; p watches the points after it.
func (sv *Saved) Branch(p Probe, hc *HashCache, plan string) (*Result, error) {
	np, err := faults.Parse(plan)
	w := sv.w
	if sv.w = nil; err != nil || w == nil || np.End != w.plan.End {
		return nil, cmp.Or(err, errors.New("scenarios: a branch's plan ends elsewhere, or its state is used up"))
	}
	old, now, idx, added := w.plan.Actions, w.loop.Now(), make([]uint64, 0, len(np.Actions)), []int(nil)
	for i, a := range np.Actions {
		if j := len(idx); j < len(old) && a.Equal(old[j]) {
			idx = append(idx, uint64(i))
		} else if added = append(added, i); sim.Time(a.At) < now {
			return nil, errors.New("scenarios: a branch's plan adds an action before its point: " + a.String())
		}
	}
	if len(idx) < len(old) {
		return nil, errors.New("scenarios: a branch's plan lacks an action of its saved run")
	}
	w.mf.prearmed = append(w.mf.prearmed, make([]bool, len(added))...) // the added actions are not at 0s
	w.plan, w.probe.p, w.probe.cache = np, p, hc.c                     // hc: the caller's (not nil)
	w.loop.Requeue(sv.seq, sv.ev, sv.ev.bg)
	w.loop.Edit(func(ev *Event) {
		if ev.kind == evFault || ev.kind == evResume || ev.kind == evUnstall {
			ev.n = idx[ev.n]
		}
	})
	for _, i := range added {
		w.loop.AtBefore(sim.Time(np.Actions[i].At), Event{kind: evFault, n: uint64(i)}, func(ev Event) bool { return ev.kind != evFault && ev.kind != evMetaFlap })
	}
	return w.runRest(w.setup, cmp.Or(w.setup.MaxEvents, DefaultMaxEvents), true)
}
