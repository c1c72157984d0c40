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
// once more, and at each time choice point where children branch it
// saves the world's state (world.ChoicePoint.Save) and runs each child
// from a copy of it with its fault added (world.Saved.Branch), the last
// child from the saved state itself: only the rest of the run after the
// point, not its prefix. A node fault's child branches at its own point;
// a message fault's child (its rule armed at 0s, its line printed when
// it fires) at the time choice point of its message's time, the last
// before its message, with its rule armed in the saved state as a run
// from the start arms it at setup. Replayed from the start instead: a
// child on a message sent at 0s (no time choice point before it), on a
// message whose number on its link was sent before that point too (a
// duplicated request's response: the rule would take the first), and a
// child at a point the world does not save (a replicated run's
// settling, world.ErrSettling). Either way its outcome is the one a
// replay gives (TestBranchMatchesReplay in package scenarios,
// TestBranchSameResult here).

// groupMax is how many children a group takes before it closes at the
// next choice point: a parent's children are split so that the workers
// share them, each group paying one more run of the parent.
const groupMax = 64

// atTime reports whether f is a fault a plan runs at its choice point's
// time (a node fault, an election, a reassignment); a message fault is
// armed at 0s.
func (f fault) atTime() bool { return f.kind >= fCrash }

// branches reports whether f's schedule may branch from a state saved at
// a time choice point: every fault but one on a message sent at 0s.
func (f fault) branches() bool { return f.atTime() || f.at > 0 }

// groupStats is what branching did in one group, or in a search.
type groupStats struct {
	// Saves counts the states saved, Branched the children run from
	// them (BranchedMsg of them on messages), Replayed the children
	// replayed instead (messages sent at 0s, points not saved).
	Saves, Branched, BranchedMsg, Replayed int64
	// SavedMax is the largest state saved, in bytes (world.Saved.Bytes).
	SavedMax int64
	// Saving and Restoring are the wall-clock times of the saves and
	// of the copies of saved states for all but the last child of a
	// point.
	Saving, Restoring time.Duration
}

func (g *groupStats) add(o groupStats) {
	g.Saves += o.Saves
	g.Branched += o.Branched
	g.BranchedMsg += o.BranchedMsg
	g.Replayed += o.Replayed
	g.SavedMax = max(g.SavedMax, o.SavedMax)
	g.Saving += o.Saving
	g.Restoring += o.Restoring
}

// brancher is the probe of a group's parent run again: its recorder
// checks the parent's faults, and at each time point where children
// branch it saves the state and runs them from it.
type brancher struct {
	recorder
	kids          []*sched
	out           []*outcome
	saved         []int64 // per child: the bytes of the state it ran from
	next          int     // the first child whose branch point is not passed
	list, hashing bool
	ss            *world.Snapshots
	hc            *world.HashCache
	// seen are the messages sent so far, as a rule names them, when a
	// number can repeat on a link (the menu duplicates).
	seen map[sendKey]struct{}
	st   groupStats
	err  error
}

func (b *brancher) Choice(cp *world.ChoicePoint) {
	b.recorder.Choice(cp)
	if cp.Kind == world.ChoiceSend {
		if b.seen != nil {
			b.seen[sendKey{cp.Dir, cp.ReqNo, cp.Client, cp.Server}] = struct{}{}
		}
		return
	}
	idx := int32(cp.Index)
	for b.next < len(b.kids) && b.kids[b.next].f.cp < idx {
		b.next++
	}
	// The children at this point (node faults), then those on the
	// messages sent at this time, after it: kids are in choice order.
	var ks []int
	for ; b.next < len(b.kids); b.next++ {
		f := b.kids[b.next].f
		if f.cp != idx && (f.atTime() || f.at != cp.At) {
			break
		}
		if _, rep := b.seen[sendKey{f.dir, f.reqNo, f.client, f.server}]; f.atTime() || !rep {
			ks = append(ks, b.next)
		}
	}
	if len(ks) == 0 || b.err != nil {
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
	b.st.SavedMax = max(b.st.SavedMax, sv.Bytes())
	for n, k := range ks {
		x := b.kids[k]
		if f := x.f; f.atTime() && (cp.At != f.at || f.node != "" && !slices.Contains(cp.Up, f.node)) {
			b.err = &inconsistency{plan: b.s.plan(x), why: "choice point " + strconv.Itoa(int(idx)) + " is not where its fault was chosen"}
			return
		}
		start := time.Now()
		use := sv
		if n < len(ks)-1 {
			if use, err = sv.Restore(b.ss); err != nil {
				b.err = err
				return
			}
			b.st.Restoring += time.Since(start)
		}
		fs := x.faults()
		rec := &recorder{s: b.s, fs: fs, next: len(fs), after: x.f.cp, list: b.list, hashing: b.hashing, reduce: b.reduce, sends: maps.Clone(b.sends)}
		if !x.f.atTime() {
			rec.next-- // the fault's point is after the saved one: check it lands there
			b.st.BranchedMsg++
		}
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
		b.saved[k] = sv.Bytes()
		b.st.Branched++
	}
}

// runGroup runs xs, children of one parent in the search's order: from
// the parent's saved states those that branch, the others replayed. It returns their outcomes in order, the bytes of
// the state each ran from (0: replayed), what branching did and the
// wall-clock time of it all.
func (s *setup) runGroup(xs []*sched, list, hashing bool, res *scenarios.Resolved, hc *world.HashCache, ss *world.Snapshots) ([]*outcome, []int64, groupStats, time.Duration, error) {
	start := time.Now()
	parent := xs[0].parent
	b := &brancher{kids: xs, out: make([]*outcome, len(xs)), saved: make([]int64, len(xs)), list: list, hashing: hashing, ss: ss, hc: hc}
	if s.menu.Duplicate {
		b.seen = map[sendKey]struct{}{}
	}
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
