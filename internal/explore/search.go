package explore

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/world"
)

// node is a run schedule of a level with children still to generate.
type node struct {
	s *sched
	o *outcome
}

// visit is the schedule that explores on from a state: its faults left,
// its events before the state, and the schedule (for the text tie-break).
type visit struct {
	r      int
	events int64
	s      *sched
}

// key orders counterexamples: fewest faults, then fewest events, then the
// smallest plan text.
type key struct {
	faults int
	events int64
	text   string
}

func (a key) less(b key) bool {
	if a.faults != b.faults {
		return a.faults < b.faults
	}
	if a.events != b.events {
		return a.events < b.events
	}
	return a.text < b.text
}

// candidate is a violating schedule.
type candidate struct {
	key key
	s   *sched
	v   violation
	// also lists every invariant the schedule violates.
	also []string
}

// engine is one search.
type engine struct {
	s       *setup
	ctx     context.Context
	visited map[world.StateHash]visit

	runs     int64
	stop     string // "", "budget", "memory", "interrupted"
	levels   []Level
	best     map[string]*candidate // per invariant
	err      error
	remain   int64 // schedules generated but not run (budget)
	progress func(Progress)
	// timing adds up the runs' wall-clock times (Result.Timing);
	// branch what branching did (Config.Branch, branch.go).
	timing Timing
	branch groupStats

	// Memory (memory.go): states counts the visited set's entries,
	// oldScheds the bytes of the schedules of earlier frontiers (the
	// visited set names them), prevBytes and prevCount the frontier the
	// level runs from; mem is what the result reports.
	states    int64
	oldScheds int64
	prevBytes int64
	prevCount int64
	mem       Memory
}

// kept returns the bytes the search keeps besides the frontier of the
// level being run: the visited set, the earlier frontiers' schedules and
// the frontier the level runs from.
func (e *engine) kept() int64 {
	return e.states*visitBytes + e.oldScheds + e.prevBytes
}

// Level is what the search did with the schedules of one number of
// faults.
type Level struct {
	Faults int `json:"faults"`
	// Schedules is the number of schedules run; Violating those that
	// broke an invariant.
	Schedules int64 `json:"schedules"`
	Violating int64 `json:"violating"`
	// Pruned is the number of schedules with one fault more that were
	// not generated from this level's runs because their state was
	// explored already; States the number of new distinct states met.
	Pruned int64 `json:"pruned"`
	States int64 `json:"states"`
	// Skipped is the number of schedules with one fault more that were
	// not generated from this level's runs because their fault's
	// message repeats an earlier message's number (Config.Reduce).
	Skipped int64 `json:"skipped,omitempty"`
	// Complete: every schedule of the level ran.
	Complete bool `json:"complete"`
}

func (e *engine) level(d int) *Level {
	for len(e.levels) <= d {
		e.levels = append(e.levels, Level{Faults: len(e.levels), Complete: true})
	}
	return &e.levels[d]
}

// search runs the levels. It returns the last level run.
func (e *engine) search() {
	s := e.s
	K := s.cfg.MaxFaults
	root := &sched{}
	var prev []node
	for d := 0; d <= K; d++ {
		internal := d < K
		var gen func(yield func(*sched) bool)
		if d == 0 {
			gen = func(yield func(*sched) bool) { yield(root) }
		} else {
			gen = func(yield func(*sched) bool) { e.expand(prev, d-1, yield) }
		}
		prev = e.runLevel(d, gen, internal)
		if e.err != nil || e.stop != "" {
			return
		}
		if len(e.best) > 0 && !s.cfg.All {
			return
		}
		if len(prev) == 0 {
			return
		}
	}
}

// runLevel runs the schedules gen yields (level d) on the workers and
// returns, for an internal level, the schedules with their outcomes in
// order.
func (e *engine) runLevel(d int, gen func(yield func(*sched) bool), internal bool) []node {
	s := e.s
	lv := e.level(d)
	// A job is a schedule, or with branching a group of consecutive
	// children of one parent (branch.go); i is its first schedule's
	// place in the level.
	type job struct {
		i  int
		xs []*sched
	}
	branching := s.cfg.Branch && d > 0
	bound := s.cfg.Memory
	// keptRT adds up the kept bytes of the level's runs as they complete
	// (any order); usedAt[i] is kept() when schedule i was handed out
	// (in order). The memory cut is taken from these in order after the
	// level (below), so it does not depend on the workers' timing.
	var keptRT int64
	var usedAt []int64
	var savedAt []int64 // with branching: the bytes of the state schedule i ran from
	jobs := make(chan job, 4*s.cfg.Parallel)
	var mu sync.Mutex
	var out []node
	hashing := internal && s.cfg.Prune
	// done records schedule i's outcome (with mu held).
	done := func(i int, x *sched, o *outcome, saved int64) {
		if internal {
			// Recorded in order after the level, up to the
			// memory cut.
			for len(out) <= i {
				out = append(out, node{})
			}
			out[i] = node{s: x, o: o}
			keptRT += o.keptBytes()
		} else {
			e.record(d, x, o)
		}
		if branching {
			for len(savedAt) <= i {
				savedAt = append(savedAt, 0)
			}
			savedAt[i] = saved
		}
		e.runs++
		if e.progress != nil {
			e.progress(Progress{Level: d, Runs: e.runs})
		}
	}
	fail := func(err error) {
		mu.Lock()
		if e.err == nil {
			e.err = err
		}
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for range s.cfg.Parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each worker resolves the parameters once for its runs.
			res, rerr := scenarios.Resolve(s.base)
			hc := world.NewHashCache()
			var ss *world.Snapshots
			if branching {
				ss = world.NewSnapshots()
			}
			for j := range jobs {
				if rerr != nil {
					fail(rerr)
					continue
				}
				if len(j.xs) > 1 {
					os, saved, st, took, err := s.runGroup(j.xs, internal, hashing, res, hc, ss)
					if err != nil {
						fail(err)
						continue
					}
					mu.Lock()
					e.timing.Runs += took
					e.timing.Saving += st.Saving
					e.timing.Restoring += st.Restoring
					e.branch.add(st)
					for k, x := range j.xs {
						e.timing.Hashing += os[k].hashTime
						done(j.i+k, x, os[k], saved[k])
					}
					mu.Unlock()
					continue
				}
				o, err := s.run(j.xs[0], internal, hashing, res, hc)
				if err != nil {
					fail(err)
					continue
				}
				mu.Lock()
				e.timing.Runs += o.runTime
				e.timing.Hashing += o.hashTime
				if branching {
					e.branch.Replayed++
				}
				done(j.i, j.xs[0], o, 0)
				mu.Unlock()
			}
		}()
	}
	// group holds the children handed out and not yet sent, with
	// branching; first is the first one's place.
	var group []*sched
	first := 0
	flush := func() {
		if slices.ContainsFunc(group, func(x *sched) bool { return x.f.branches() }) {
			jobs <- job{first, group}
		} else {
			// None branches (messages sent at 0s): no run of the
			// parent again.
			for k, x := range group {
				jobs <- job{first + k, []*sched{x}}
			}
		}
		group = nil
	}
	i := 0
	counting := false
	gen(func(x *sched) bool {
		if counting {
			e.remain++
			return true
		}
		if e.ctx.Err() != nil {
			// Count what is left of the level, as for the budget.
			e.stop = "interrupted"
			counting = true
			e.remain++
			return true
		}
		mu.Lock()
		failed := e.err != nil
		mu.Unlock()
		if failed {
			return false
		}
		if b := s.cfg.Budget; b > 0 && int64(i)+e.runsBefore(d) >= b {
			e.stop = "budget"
			counting = true
			e.remain++
			return true
		}
		if bound > 0 {
			used := e.kept()
			mu.Lock()
			rt := keptRT
			mu.Unlock()
			if used+rt > bound {
				// The schedules completed so far already keep too
				// much: the cut (below) is at i or before, whatever
				// the schedules not yet complete keep.
				e.stop = "memory"
				counting = true
				e.remain++
				return true
			}
			if internal {
				usedAt = append(usedAt, used)
			}
		}
		if s.cfg.onSchedule != nil {
			s.cfg.onSchedule(s.plan(x))
		}
		if !branching {
			jobs <- job{i, []*sched{x}}
			i++
			return true
		}
		// A group splits after groupMax at the next branch point: a
		// time choice point, with the messages sent at its time.
		if n := len(group); n > 0 && (x.parent != group[0].parent || n >= groupMax && x.f.at != group[n-1].f.at) {
			flush()
		}
		if len(group) == 0 {
			first = i
		}
		group = append(group, x)
		i++
		return true
	})
	flush()
	close(jobs)
	wg.Wait()
	if internal {
		limit := i
		if bound > 0 {
			// The cut: the first schedule whose kept bytes, added to
			// those of the schedules before it and to what the search
			// kept when it was handed out, do not fit.
			var sum int64
			for k := range i {
				if out[k].o != nil {
					sum += out[k].o.keptBytes()
				}
				if usedAt[k]+sum+at(savedAt, k) > bound {
					limit = k
					break
				}
			}
		}
		if limit < i {
			e.stop = "memory"
			e.remain += int64(i - limit)
			out = out[:limit]
		}
		for k := range min(limit, len(out)) {
			if out[k].o != nil {
				e.record(d, out[k].s, out[k].o)
			}
		}
		e.frontier(out)
	} else {
		e.frontier(nil)
	}
	if e.stop != "" {
		lv.Complete = false
	}
	if d == 0 && s.cfg.Shard.Index != 0 {
		// Every shard runs the schedule without faults; shard 0 counts it.
		*lv = Level{Faults: 0, Complete: lv.Complete}
	}
	return out
}

// frontier makes out the frontier the next level runs from and updates
// the memory account: the previous frontier's outcomes are let go, its
// schedules stay (the visited set names them).
func (e *engine) frontier(out []node) {
	var n, b int64
	for _, x := range out {
		if x.o != nil {
			n++
			b += x.o.keptBytes()
		}
	}
	// The peak: at a level's end the visited set is at its largest and
	// both frontiers are held.
	e.mem.Peak = max(e.mem.Peak, e.kept()+b+e.branch.SavedMax) // a worker's saved state: the largest

	if b > e.mem.FrontierBytes {
		e.mem.FrontierBytes, e.mem.FrontierSchedules = b, n
	}
	e.oldScheds += e.prevCount * schedBytes
	e.prevBytes, e.prevCount = b, n
}

// runsBefore is the number of runs in the levels before d (the budget
// counts all runs, the fault-free one included).
func (e *engine) runsBefore(d int) int64 {
	var n int64
	for i := range d {
		n += e.levels[i].Schedules
	}
	if d > 0 && e.s.cfg.Shard.Index != 0 {
		n++ // the fault-free run, which shard 0 counts
	}
	return n
}

// record adds a run's outcome to its level (with e's lock held).
func (e *engine) record(d int, x *sched, o *outcome) {
	lv := e.level(d)
	lv.Schedules++
	lv.Skipped += o.skipped
	if len(o.violated) == 0 {
		return
	}
	lv.Violating++
	k := key{faults: d, events: o.events}
	var also []string
	for _, v := range o.violated {
		also = append(also, v.Invariant)
	}
	for _, v := range o.violated {
		b := e.best[v.Invariant]
		if b != nil && b.key.faults < k.faults {
			continue
		}
		if b != nil && b.key.faults == k.faults && b.key.events < k.events {
			continue
		}
		if k.text == "" && x.parent != nil {
			k.text = e.s.actions(x)
		}
		if b == nil || k.less(b.key) {
			e.best[v.Invariant] = &candidate{key: k, s: x, v: v, also: also}
		}
	}
}

// expand yields, in order, the children of the level-d schedules in prev:
// each menu fault at each choice point after the schedule's last fault,
// except from the first point whose state was explored already by a
// schedule that covers this one (pruning).
func (e *engine) expand(prev []node, d int, yield func(*sched) bool) {
	s := e.s
	r := s.cfg.MaxFaults - d // faults left to spend at these points
	lv := e.level(d)
	var opts []fault
	child := 0
	sharded := s.cfg.Shard.Count > 1
	for _, n := range prev {
		if n.s == nil {
			continue // not run (interrupted)
		}
		pts := n.o.points
		for pi := range pts {
			p := &pts[pi]
			if s.cfg.Prune && p.kind == world.ChoiceTime && !(sharded && d == 0) {
				if v, ok := e.visited[p.hash]; ok && e.covers(v, r, p.events, n.s) {
					for _, q := range pts[pi:] {
						lv.Pruned += int64(len(s.options(&q, opts[:0])))
					}
					break
				} else {
					if !ok {
						lv.States++
						e.states++
					}
					e.visited[p.hash] = visit{r: r, events: p.events, s: n.s}
				}
			}
			opts = s.options(p, opts[:0])
			for _, f := range opts {
				if d == 0 && sharded {
					mine := child%s.cfg.Shard.Count == s.cfg.Shard.Index
					child++
					if !mine {
						continue
					}
				}
				if !yield(&sched{parent: n.s, f: f, depth: d + 1}) {
					return
				}
			}
		}
	}
}

// covers reports whether the explored visit v covers schedule x reaching
// the same state with r faults left after events events: v had more
// faults left, or as many and a prefix that sorts no later.
func (e *engine) covers(v visit, r int, events int64, x *sched) bool {
	if v.r != r {
		return v.r > r
	}
	if c := cmp.Compare(v.events, events); c != 0 {
		return c < 0
	}
	return e.s.actions(v.s) <= e.s.actions(x)
}

// at returns xs[k], or 0 past its end.
func at(xs []int64, k int) int64 {
	if k < len(xs) {
		return xs[k]
	}
	return 0
}
