package world

import (
	"cmp"
	"errors"
	"reflect"

	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world/internal/snapshot"
)

// Saved is a world's state saved at a ChoiceTime point by
// [ChoicePoint.Save] (a deep copy, internal/snapshot), with the event
// about to run; [Saved.Resume] runs a copy of it on, any number of times.
type Saved struct {
	w     *World
	ev    Event
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
	return &Saved{w: w, ev: cp.ev, Stats: st}, err
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
