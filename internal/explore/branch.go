package explore

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Branching (Config.Branch, -explore-branch, docs/explore.md "Saved
// states"): the children of one schedule that a level runs one after
// another go to one worker as a group. The worker runs their parent
// once more, and at each time choice point where children were chosen
// it saves the world's state (world.ChoicePoint.Save) and runs each
// child from a copy of it with its fault added (world.Saved.Branch),
// the last child from the saved state itself: only the rest of the run
// after the point, not its prefix. A child whose fault is on a message
// is replayed from the start: its plan line is armed at 0s and printed
// into the trace there, before the point, so a branch would not give
// the replay's trace. So is a child at a point the world does not save
// (a replicated run's settling, world.ErrSettling). Either way its
// outcome is the one a replay gives (TestBranchMatchesReplay in package
// scenarios, TestBranchSameResult here).

// groupMax is how many children a group takes before it closes at the
// next choice point: a parent's children are split so that the workers
// share them, each group paying one more run of the parent.
const groupMax = 64

// atTime reports whether f is a fault a plan runs at its choice point's
// time (a node fault, an election, a reassignment), which a branch adds
// to a saved state; a message fault is armed at 0s.
func (f fault) atTime() bool { return f.kind >= fCrash }

// groupStats is what branching did in one group, or in a search.
type groupStats struct {
	// Saves counts the states saved, Branched the children run from
	// them, Replayed the children of groups replayed instead (message
	// faults, points not saved).
	Saves, Branched, Replayed int64
	// SavedMax is the largest state saved, in bytes (its copy's).
	SavedMax int64
	// Saving and Restoring are the wall-clock times of the saves and
	// of the copies of saved states for all but the last child of a
	// point.
	Saving, Restoring time.Duration
}

func (g *groupStats) add(o groupStats) {
	g.Saves += o.Saves
	g.Branched += o.Branched
	g.Replayed += o.Replayed
	g.SavedMax = max(g.SavedMax, o.SavedMax)
	g.Saving += o.Saving
	g.Restoring += o.Restoring
}

// brancher is the probe of a group's parent run again: its recorder
// checks the parent's faults, and at each point where children were
// chosen it saves the state and runs them from it.
type brancher struct {
	recorder
	kids          []*sched
	out           []*outcome
	saved         []int64 // per child: the bytes of the state it ran from
	next          int     // the first child whose point is not passed
	list, hashing bool
	ss            *world.Snapshots
	hc            *world.HashCache
	st            groupStats
	err           error
}

func (b *brancher) Choice(cp *world.ChoicePoint) {
	b.recorder.Choice(cp)
	idx := int32(cp.Index)
	for b.next < len(b.kids) && b.kids[b.next].f.cp < idx {
		b.next++
	}
	lo, hi := b.next, b.next
	for hi < len(b.kids) && b.kids[hi].f.cp == idx {
		hi++
	}
	b.next = hi
	if lo == hi || b.err != nil || cp.Kind != world.ChoiceTime || !b.kids[lo].f.atTime() {
		return // none here, or replayed after the parent's run
	}
	start := time.Now()
	sv, err := cp.Save(b.ss)
	b.st.Saving += time.Since(start)
	if errors.Is(err, world.ErrSettling) {
		return
	}
	if err != nil {
		b.err = err
		return
	}
	b.st.Saves++
	b.st.SavedMax = max(b.st.SavedMax, int64(sv.Stats.Bytes))
	for k := lo; k < hi; k++ {
		x := b.kids[k]
		if f := x.f; cp.At != f.at || f.node != "" && !slices.Contains(cp.Up, f.node) {
			b.err = &inconsistency{plan: b.s.plan(x), why: "choice point " + strconv.Itoa(int(idx)) + " is not where its fault was chosen"}
			return
		}
		start := time.Now()
		use := sv
		if k < hi-1 {
			if use, err = sv.Restore(b.ss); err != nil {
				b.err = err
				return
			}
			b.st.Restoring += time.Since(start)
		}
		fs := x.faults()
		rec := &recorder{s: b.s, fs: fs, next: len(fs), after: x.f.cp, list: b.list, hashing: b.hashing, reduce: b.reduce, sends: maps.Clone(b.sends)}
		plan := b.s.plan(x)
		out, err := use.Branch(rec, b.hc, plan)
		if err != nil {
			b.err = err
			return
		}
		if b.out[k], err = b.s.outcomeOf(out, rec, plan, time.Since(start)); err != nil {
			b.err = err
			return
		}
		b.saved[k] = int64(sv.Stats.Bytes)
		b.st.Branched++
	}
}

// runGroup runs xs, children of one parent in the search's order: the
// children at time choice points from the parent's saved states, the
// others replayed. It returns their outcomes in order, the bytes of
// the state each ran from (0: replayed), what branching did and the
// wall-clock time of it all.
func (s *setup) runGroup(xs []*sched, list, hashing bool, res *scenarios.Resolved, hc *world.HashCache, ss *world.Snapshots) ([]*outcome, []int64, groupStats, time.Duration, error) {
	start := time.Now()
	parent := xs[0].parent
	b := &brancher{kids: xs, out: make([]*outcome, len(xs)), saved: make([]int64, len(xs)), list: list, hashing: hashing, ss: ss, hc: hc}
	b.recorder = recorder{s: s, fs: parent.faults(), after: parent.last(), reduce: s.cfg.Reduce && s.menu.Duplicate}
	spec := s.base
	spec.Resolved, spec.HashCache, spec.Probe = res, hc, b
	spec.PlanText = s.plan(parent)
	if _, err := scenarios.Run(spec); err != nil {
		return nil, nil, b.st, 0, err
	}
	if b.err != nil {
		return nil, nil, b.st, 0, b.err
	}
	if b.bad != "" || b.recorder.next != len(b.fs) {
		return nil, nil, b.st, 0, &inconsistency{plan: spec.PlanText, why: b.bad}
	}
	for k, x := range xs {
		if b.out[k] != nil {
			continue
		}
		o, err := s.run(x, list, hashing, res, hc)
		if err != nil {
			return nil, nil, b.st, 0, err
		}
		b.out[k] = o
		b.st.Replayed++
	}
	return b.out, b.saved, b.st, time.Since(start), nil
}
