package world

import (
	"io"
	"math/rand/v2"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

// Setup is everything one run depends on, as the World takes it: the
// scenario's name and how it builds and draws its fault plan, the
// resolved configuration, the seed, and what the run is asked to keep.
// Two runs of equal setups produce the same trace, byte for byte.
// Package scenarios makes a Setup from a catalogue scenario and a Spec.
type Setup struct {
	// Name is the scenario's name, for the run's header and report.
	Name string
	// Build adds the scenario's applications and instances ([Builder]).
	Build func(b Builder) error
	// Plan, if set, draws the scenario's fault plan; nil means the
	// generic generator ([faults.Generate] with the fault.* parameters).
	Plan PlanFunc
	// Resolved is the run's configuration ([Resolve]).
	Resolved *Resolved
	// Seed seeds every random stream of the run.
	Seed uint64
	// Bugs are the -bug IDs turned on, in order, for the report.
	Bugs []string
	// PlanText, if not empty (or if PlanSource names a file), is the fault
	// plan to replay (docs/plans.md) instead of the one the seed draws;
	// PlanSource is where it came from, for its errors.
	PlanText   string
	PlanSource PlanSource
	// Trace, if not nil, receives the timeline as it is written;
	// KeepTrace keeps it in Result.Trace.
	Trace     io.Writer
	KeepTrace bool
	// MaxEvents bounds the run (0: 50,000,000 events); MaxState bounds
	// the state it may hold at once (0: [DefaultMaxState]).
	MaxEvents, MaxState int64
	// Realize keeps the run's realized plan in Result.Realized.
	Realize bool
	// Readers are made for the run and read its observation stream
	// ([Reader]).
	Readers []MakeReader
	// Probe, if set, is called at the run's choice points ([Probe]).
	Probe Probe
	// HashCache, if set, is shared by the state hashes of runs made one
	// after another in one goroutine.
	HashCache *HashCache
}

// PlanFunc draws a scenario's fault plan from rng (the run's "faults"
// stream) for the world's nodes, reading the parameters from
// v.Config(). A zero End is filled in from fault.end.
type PlanFunc func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan
