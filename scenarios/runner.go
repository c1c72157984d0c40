package scenarios

import (
	"strconv"

	"github.com/idemsim/idemsim/scenarios/world"
)

// Runner runs specs one after another, reusing the memory of its previous
// run's World ([world.Runner]). The zero value is ready to use. A Runner
// is not safe for concurrent use: give each goroutine its own.
type Runner struct {
	w world.Runner
}

// Run runs spec as [Run] does, with the same result, in the memory of the
// runner's previous run.
func (r *Runner) Run(spec Spec) (*Result, error) {
	res := spec.Resolved
	if res == nil {
		var err error
		if res, err = Resolve(spec); err != nil {
			return nil, err
		}
	}
	s := spec.setup(res)
	out, err := r.w.Run(&s)
	if err != nil {
		return nil, err
	}
	// The command is spec.reproduce(), made from the resolution's tail.
	out.Reproduce = reproduceHead() + strconv.FormatUint(spec.Seed, 10) + res.reproduceTail
	return out, nil
}

// Recycle hands res, a Result this runner returned, back to it
// ([world.Runner.Recycle]): the next Run may write its result there. res
// must not be used after; nil does nothing.
func (r *Runner) Recycle(res *Result) { r.w.Recycle(res) }

// setup is the World's view of the spec's run, resolved as res.
func (spec *Spec) setup(res *Resolved) world.Setup {
	sc := spec.Scenario
	s := world.Setup{
		Name: sc.Name, Build: sc.build, Plan: sc.plan, Resolved: &res.Resolved,
		Seed: spec.Seed, Bugs: spec.Bugs, PlanText: spec.PlanText, PlanSource: spec.PlanSource,
		Trace: spec.Trace, KeepTrace: spec.KeepTrace, MaxEvents: spec.MaxEvents, MaxState: spec.MaxState,
		Realize: spec.Realize, Readers: spec.Readers, Probe: spec.Probe, HashCache: spec.HashCache,
	}
	if sc.planFor != nil {
		s.Plan = sc.planFor(s)
	}
	return s
}
