package scenarios

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Scenario is one named, documented simulation setup: a value, not code
// with side effects. Its parameters are the common ones ([params.Values]) with the
// scenario's own defaults and additions.
type Scenario struct {
	// Name is the identifier used with -scenario.
	Name string
	// Summary is one line for -list.
	Summary string
	// Story tells what happens, for -describe.
	Story string
	// ExpectOff and ExpectOn say what to expect with idempotence off and
	// on.
	ExpectOff, ExpectOn string
	// Defaults override common parameter defaults.
	Defaults []params.KV
	// Extra are the scenario's own parameters.
	Extra []params.Param
	// OffShows lists the invariants of which at least one fires, within
	// 200 seeds, with idempotence off: the failure the scenario exists to
	// show. Empty when the failure needs idempotence (OffNote says why).
	OffShows []string
	OffNote  string
	// OnShows lists invariants that fire with idempotence on too, because
	// real Kafka has the same failure (OnNote says why); empty when Kafka
	// guarantees the scenario safe.
	OnShows []string
	OnNote  string
	// Bugs lists the -bug IDs that make sense with this scenario.
	Bugs []string
	// SingleCopy, when set, says why the scenario's story needs one copy
	// of each partition: its targeted faults are timed for it. A run that
	// replicates (replication.factor above 1, as -set brokers=3 gives)
	// gets a configuration note saying the story no longer applies.
	SingleCopy string
	// build adds the scenario's applications and instances through the
	// exported [Builder] only. It reads the parameters from
	// b.Config(), decoded by Resolve.
	build func(b world.Builder) error
	// plan, if set, draws the scenario's fault plan from rng (the run's
	// "faults" stream) for the world's nodes. A zero End is filled in
	// from fault.end. Nil means the generic generator
	// ([faults.Generate] with the fault.* parameters), which with
	// fault.count=0 gives a plan with no actions. It reads the parameters
	// from v.Config(), decoded by Resolve.
	plan func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan
	// planFor, if set, replaces plan: it returns the plan function of
	// the run s, for a plan that depends on the run's seed beyond the
	// "faults" stream (unstable's, timed from a first run of the seed).
	planFor func(s world.Setup) world.PlanFunc
}

// Values returns the scenario's parameters at their defaults.
func (s *Scenario) Values() *params.Values {
	return params.ScenarioValues(s.Extra, s.Defaults)
}

// catalogue holds the catalogue's scenarios by name: the constructor
// each scenario's file registered.
var catalogue = map[string]func() *Scenario{}

// register adds a scenario to the catalogue. Each catalogue scenario's
// file calls it from an init function:
//
//	func init() { register(zombie) }
//
// It panics if a scenario of the same name is registered already: a name
// picks one scenario.
func register(f func() *Scenario) {
	name := f().Name
	if _, dup := catalogue[name]; dup {
		panic("scenarios: scenario " + strconv.Quote(name) + " registered twice")
	}
	catalogue[name] = f
}

// All returns the scenario catalogue, sorted by name: new values on each
// call, which the caller may change.
func All() []*Scenario {
	var all []*Scenario
	for _, name := range Names() {
		all = append(all, catalogue[name]())
	}
	return all
}

// Names returns the catalogue's names, sorted.
func Names() []string { return slices.Sorted(maps.Keys(catalogue)) }

// Lookup returns the scenario called name.
func Lookup(name string) (*Scenario, error) {
	if f, ok := catalogue[name]; ok {
		return f(), nil
	}
	return nil, fmt.Errorf("unknown scenario %q%s (known: %s)", name, params.DidYouMean(name, Names()), strings.Join(Names(), ", "))
}
