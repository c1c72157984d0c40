package scenarios

import (
	"fmt"
	"math/rand/v2"
	"slices"
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
}

// Values returns the scenario's parameters at their defaults.
func (s *Scenario) Values() *params.Values {
	return params.ScenarioValues(s.Extra, s.Defaults)
}

// All returns the scenario catalogue, sorted by name.
func All() []*Scenario {
	all := []*Scenario{ackloss(), reorder(), inflight6(), restart(), zombie(), expiry(), statelost(), wrap(), epochx(), seqreuse(), emptypart(), crossbump(), txntimeout(), txnlate(), hanging(), acks1(), unclean(), failover(), isolated(), coordfailover()}
	slices.SortFunc(all, func(a, b *Scenario) int { return strings.Compare(a.Name, b.Name) })
	return all
}

// Names returns the catalogue's names, sorted.
func Names() []string {
	var n []string
	for _, s := range All() {
		n = append(n, s.Name)
	}
	return n
}

// Lookup returns the scenario called name.
func Lookup(name string) (*Scenario, error) {
	for _, s := range All() {
		if s.Name == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("unknown scenario %q (known: %s)", name, strings.Join(Names(), ", "))
}
