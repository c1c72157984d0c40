package explain

import (
	"errors"
	"slices"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// ErrNoViolation is returned by [Shrink] for a run that breaks no
// invariant: there is nothing to explain.
var ErrNoViolation = errors.New("the run breaks no invariant: nothing to shrink")

// DefaultShrinkBudget bounds the runs of a shrink when none is given.
const DefaultShrinkBudget = 500

// Shrunk is the outcome of [Shrink].
type Shrunk struct {
	// Invariant is the invariant that fails, in the original run and in
	// the run of Plan.
	Invariant string
	// Plan is the minimal plan found; Sets the overrides it replays with
	// (the spec's, plus fault.realized=true when the run had random
	// losses).
	Plan faults.Plan
	Sets []params.KV
	// Before is the number of actions of the original run's realized plan.
	Before int
	// Runs counts the simulations the shrink ran, the original included;
	// Exhausted tells that it stopped at the budget.
	Runs      int
	Exhausted bool
	// Result is the run of Plan.
	Result *scenarios.Result
}

// Shrink runs spec and, if an invariant fails, looks for a smaller fault
// plan that still breaks the same invariant (by name): it starts from the
// run's realized plan (its plan plus its random losses as planned drops
// and rejects, realize.go), then
//
//  1. removes the plan's own actions by delta debugging (ddmin);
//  2. weakens each remaining action: a shorter pause, an earlier heal or
//     restart, a smaller drift (binary searches), a rounder time;
//  3. removes the realized drops and rejects by delta debugging;
//  4. repeats 1 and 3 once more over everything left.
//
// A candidate is kept iff its run still breaks the invariant. Every
// candidate is a plan in time order that the world accepts
// (faults.Plan.CheckSequence): removing a crash or a partition removes
// its restart or heal too, and one that would still be refused (a crash
// moved before a pause of the same process) is not run. Candidates are
// tried one at a time in a fixed order, so the same spec always gives
// the same minimal plan. budget bounds the runs (0: [DefaultShrinkBudget]).
func Shrink(spec scenarios.Spec, budget int) (*Shrunk, error) {
	if budget <= 0 {
		budget = DefaultShrinkBudget
	}
	spec.Trace, spec.KeepTrace, spec.Readers = nil, false, nil
	spec.Realize = true
	r0, err := scenarios.Run(spec)
	if err != nil {
		return nil, err
	}
	if !r0.HasViolations() {
		return nil, ErrNoViolation
	}
	orig, err := faults.Parse(r0.Plan)
	if err != nil {
		return nil, err
	}
	real, err := faults.Parse(r0.Realized)
	if err != nil {
		return nil, err
	}
	s := &shrinker{spec: spec, budget: budget, runs: 1, inv: r0.Violations[0].Invariant, end: real.End, run: scenarios.Run}
	s.spec.Sets = world.RealizedSets(r0, spec.Sets)
	s.spec.PlanSource = world.PlanSource{}
	out := &Shrunk{Invariant: s.inv, Before: len(real.Actions)}

	// The realized actions sit after the original plan's 0s actions.
	i0 := 0
	for i0 < len(orig.Actions) && orig.Actions[i0].At == 0 {
		i0++
	}
	nReal := len(real.Actions) - len(orig.Actions)
	items := make([]item, len(real.Actions))
	for i := range real.Actions {
		items[i] = item{a: real.Actions[i], realized: i >= i0 && i < i0+nReal}
	}
	if !s.test(items) {
		// The realized replay does not fail (it should): shrink the
		// plan alone, with the random sources on.
		s.spec.Sets = spec.Sets
		items = items[:0]
		for _, a := range orig.Actions {
			items = append(items, item{a: a})
		}
		if !s.test(items) {
			out.Plan, out.Sets, out.Runs, out.Result = orig, spec.Sets, s.runs, r0
			return out, nil
		}
	}
	for round := range 2 {
		items = s.ddmin(items, func(it item) bool { return round > 0 || !it.realized })
		if round == 0 {
			items = s.weaken(items)
		}
		items = s.ddmin(items, func(it item) bool { return round > 0 || it.realized })
	}
	out.Plan = s.plan(items)
	out.Sets, out.Runs, out.Exhausted, out.Result = s.spec.Sets, s.runs, s.exhausted, s.last
	if out.Result == nil || !out.Plan.Equal(&s.lastPlan) {
		// The last passing run was of another candidate: run the result.
		s.budget++
		s.test(items)
		out.Runs, out.Result = s.runs, s.last
	}
	return out, nil
}

type item struct {
	a        faults.Timed
	realized bool
}

type shrinker struct {
	spec      scenarios.Spec
	budget    int
	runs      int
	exhausted bool
	inv       string
	end       time.Duration
	last      *scenarios.Result
	lastPlan  faults.Plan
	// run runs a candidate: scenarios.Run, or a test's stand-in.
	run func(scenarios.Spec) (*scenarios.Result, error)
}

// plan returns the plan of items, sorted by time as a plan must be
// (actions at the same time keep their order). The world runs a plan's
// actions by time, then in plan order, so sorting changes no run: items
// may be out of time order while the shrinker moves a restart or a heal
// earlier, or an action to a rounder time.
func (s *shrinker) plan(items []item) faults.Plan {
	p := faults.Plan{End: s.end}
	for _, it := range items {
		p.Actions = append(p.Actions, it.a)
	}
	p.SortByTime()
	return p
}

// test runs the plan of items and reports whether the invariant still
// fails. A plan the world would refuse (faults.Plan.CheckSequence: a
// pause of a crashed process, a restart of a running one, a heal of no
// partition) fails without a run.
func (s *shrinker) test(items []item) bool {
	p := s.plan(items)
	if p.CheckSequence() != nil {
		return false
	}
	if s.runs >= s.budget {
		s.exhausted = true
		return false
	}
	s.runs++
	spec := s.spec
	spec.PlanText = p.String()
	r, err := s.run(spec)
	if err != nil {
		return false
	}
	for _, v := range r.Violations {
		if v.Invariant == s.inv {
			s.last, s.lastPlan = r, p
			return true
		}
	}
	return false
}

// ddmin removes the items sel picks by delta debugging (Zeller), keeping
// the others; it returns the items left. A candidate that removes an
// action removes what closes it too (a crash's restart, a partition's
// heal: [closers]), which would otherwise restart a running process or
// heal what is not cut; the closer alone may go.
func (s *shrinker) ddmin(items []item, sel func(item) bool) []item {
	var fixed, c []int // indexes into items
	for i, it := range items {
		if sel(it) {
			c = append(c, i)
		} else {
			fixed = append(fixed, i)
		}
	}
	closes := closers(items)
	build := func(keep []int) []item {
		idx := slices.Concat(fixed, keep)
		slices.Sort(idx)
		out := make([]item, 0, len(idx))
		for _, i := range idx {
			if o := closes[i]; o >= 0 {
				if _, kept := slices.BinarySearch(idx, o); !kept {
					continue
				}
			}
			out = append(out, items[i])
		}
		return out
	}
	if len(c) == 0 {
		return items
	}
	if s.test(build(nil)) {
		return build(nil)
	}
	n := 2
	for len(c) >= 2 && !s.exhausted {
		chunks := split(c, n)
		reduced := false
		for _, ch := range chunks {
			if s.test(build(ch)) {
				c, n, reduced = ch, 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for k := range chunks {
				comp := slices.Concat(slices.Concat(chunks[:k]...), slices.Concat(chunks[k+1:]...))
				if s.test(build(comp)) {
					c, n, reduced = comp, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(c) {
				break
			}
			n = min(2*n, len(c))
		}
	}
	return build(c)
}

// split cuts c into n nearly equal consecutive chunks.
func split(c []int, n int) [][]int {
	var out [][]int
	for i := range n {
		lo, hi := i*len(c)/n, (i+1)*len(c)/n
		if hi > lo {
			out = append(out, c[lo:hi])
		}
	}
	return out
}

// weaken weakens each of the plan's own actions in turn: it turns the
// action's knob down ([faults.Action.Weaken]: a shorter pause, a smaller
// drift), moves the action that closes it earlier (the heal of a
// partition, the restart of a crash), both by binary search, then tries a
// rounder, earlier start.
func (s *shrinker) weaken(items []item) []item {
	items = slices.Clone(items)
	try := func(i int, a faults.Timed) bool {
		cand := slices.Clone(items)
		cand[i].a = a
		if s.test(cand) {
			items = cand
			return true
		}
		return false
	}
	for i := range items {
		if items[i].realized {
			continue
		}
		a := items[i].a
		if k, ok := a.Weaken(); ok {
			with := func(v int64) bool { b := a; b.Action = k.With(v); return try(i, b) }
			m := s.search(k.Min, k.Max, k.Duration, with)
			if k.Duration {
				s.round(m, k.Max, with)
			}
		}
		if j := closer(items, i); j >= 0 {
			h := items[j].a
			at := func(d int64) bool { b := h; b.At = time.Duration(d); return try(j, b) }
			m := s.search(int64(a.At), int64(h.At), true, at)
			s.round(m, int64(h.At), at)
		}
		// A rounder, earlier start.
		for _, unit := range []time.Duration{time.Second, 100 * time.Millisecond, 10 * time.Millisecond, time.Millisecond} {
			b := items[i].a
			if t := b.At / unit * unit; t != b.At {
				b.At = t
				if j := closer(items, i); j < 0 || items[j].a.At >= t {
					if try(i, b) {
						break
					}
				}
			} else {
				break
			}
		}
	}
	return items
}

// closer returns the index of the action that closes the interval the
// action at i opens (its heal, its restart; [closers]), or -1.
func closer(items []item, i int) int {
	for j, o := range closers(items) { // a slice: j ascending
		if o == i {
			return j
		}
	}
	return -1
}

// closers pairs the actions that close an interval with the action whose
// interval they close: out[j] is the index of the action item j closes,
// -1 if none. A restart with the crash of its node in
// force, a heal with the oldest partition of the same sides in force
// (faults.Plan.CheckSequence pairs them alike). Items are taken in time
// order, stably.
func closers(items []item) []int {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmpDur(items[i].a.At, items[j].a.At) })
	out := make([]int, len(items))
	for i := range out {
		out[i] = -1
	}
	var open []int // openers in force, oldest first
	for _, j := range order {
		a := items[j].a
		if a.Span() == faults.UntilRestarted || a.Span() == faults.UntilClosed {
			open = append(open, j)
			continue
		}
		if k := slices.IndexFunc(open, func(o int) bool { return a.Closes(items[o].a.Action) }); k >= 0 {
			out[j] = open[k]
			open = slices.Delete(open, k, k+1)
		}
	}
	return out
}

// search finds, by binary search, the smallest value in [lo, hi) for
// which ok holds, given that it holds at hi; it returns hi when none
// does. Durations (dur) of ranges of 100ms or more are searched at
// millisecond resolution, everything else in units of 1. ok is called
// with candidate values and must keep a value it accepts.
func (s *shrinker) search(lo, hi int64, dur bool, ok func(int64) bool) int64 {
	unit := int64(1)
	if dur && hi-lo >= int64(100*time.Millisecond) {
		unit = int64(time.Millisecond)
	}
	lo, hi = lo/unit, hi/unit // in units; the answer is in (lo-1, hi]
	best := hi
	if ok(lo * unit) {
		return lo * unit
	}
	for hi-lo > 1 && !s.exhausted {
		mid := lo + (hi-lo)/2
		if ok(mid * unit) {
			hi, best = mid, mid
		} else {
			lo = mid
		}
	}
	return best * unit
}

// round tries rounder durations between m and limit: m rounded up to 1s,
// then to 100ms, then to 10ms.
func (s *shrinker) round(m, limit int64, ok func(int64) bool) {
	for _, unit := range []int64{int64(time.Second), int64(100 * time.Millisecond), int64(10 * time.Millisecond)} {
		r := (m + unit - 1) / unit * unit
		if r == m {
			return
		}
		if r < limit && ok(r) {
			return
		}
	}
}

func cmpDur(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
