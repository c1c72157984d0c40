package scenarios

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Spec is everything one run depends on. Two runs of equal specs produce
// the same trace, byte for byte.
type Spec struct {
	Scenario *Scenario
	Seed     uint64
	// FileSets are the scenario file's parameter values, in file order
	// (level "file", docs/parameters.md).
	FileSets []params.KV
	// Bugs are the -bug IDs whose settings apply, in order (level "-bug").
	Bugs []string
	// Sets are the command line's key=value overrides, applied in order
	// (level "-set"): -idempotence as enable.idempotence, then each -set.
	Sets []params.KV
	// Preset, if set, is the name of a preset (level "preset", -preset).
	Preset string
	// Trace, if not nil, receives the timeline as it is written.
	Trace io.Writer
	// KeepTrace keeps the timeline in Result.Trace.
	KeepTrace bool
	// MaxEvents bounds the run; 0 means 50,000,000.
	MaxEvents int64
	// MaxState bounds the state a run may hold at once, counted in what
	// the simulation itself counts (so the bound is deterministic):
	// pending events, messages on the wire, recorded plan actions and
	// event-log entries, a unit each, and the records sent and log
	// entries appended, [world.HeldPerUnit] to a unit (what the
	// producer's, the brokers' and the checkers' tables keep of them to
	// the run's end). A run that exceeds it stops with stop reason
	// "state-limit" (a LIVE-PROD violation, like the event limit). 0 means
	// [DefaultMaxState].
	MaxState int64
	// ScenarioFile is the path of the scenario file the scenario came
	// from, if any; the reproduce command then names the file.
	ScenarioFile string
	// PlanText, if not empty (or if PlanSource names a -plan-file), is the
	// fault plan to replay (docs/plans.md) instead of the one the seed
	// generates.
	PlanText string
	// PlanSource is where PlanText came from, for errors and the
	// reproduce command.
	PlanSource world.PlanSource
	// Realize keeps the run's realized plan in Result.Realized
	// (realize.go); shrinking asks for it. Without it the random losses
	// are not recorded.
	Realize bool
	// Readers are made for the run and read its observation stream
	// (reader.go): the explain log (explain.Record), the history
	// (history.Record, docs/history.md). They change nothing in the run.
	Readers []world.MakeReader
	// Probe, if set, is called at the run's choice points (probe.go): an
	// explorer's hook. It changes nothing in the run.
	Probe world.Probe
	// Resolved, if set, is [Resolve] of this spec, made once for many
	// runs that differ only in Seed, PlanText and Probe (an explorer's, a
	// sweep point's); the run reads it and does not resolve again. Runs
	// on several goroutines may share it: nothing writes to it.
	Resolved *Resolved
	// HashCache, if set, is shared by the state hashes of runs made one
	// after another in one goroutine (statehash.go).
	HashCache *world.HashCache
}

// Resolved is a run's configuration, resolved once before the run
// starts ([world.Resolved]), with what its runs' reproduce command has
// after the seed.
type Resolved struct {
	world.Resolved
	// reproduceTail is what the runs' reproduce command has after the
	// seed, made once.
	reproduceTail string
}

// reproduceHead is how every reproduce command starts: [Command] and
// -seed; the seed follows.
func reproduceHead() string { return command + " -seed " }

// Resolve applies the levels of precedence (docs/parameters.md) to the
// spec's scenario, weakest first: the parameters' defaults, the
// scenario's, the scenario file's values (spec.FileSets), the -bug
// settings (spec.Bugs) and the command line (spec.Sets). It then decodes
// the values into a typed [params.Config], once, and checks the producer
// and network configurations ([world.Resolve]). The error is one line
// naming the key.
func Resolve(spec Spec) (*Resolved, error) {
	v := spec.Scenario.Values()
	if err := v.Apply(params.Overrides{Preset: spec.Preset, FileSets: spec.FileSets, Bugs: spec.Bugs, Sets: spec.Sets}); err != nil {
		return nil, err
	}
	wr, err := world.Resolve(v)
	if err != nil {
		return nil, err
	}
	if sc := spec.Scenario; sc.SingleCopy != "" && wr.Config.ReplicationFactor() > 1 {
		wr.Notes = append(wr.Notes, sc.Name+"'s story needs one copy of each partition ("+sc.SingleCopy+"): with replication.factor="+
			strconv.Itoa(wr.Config.ReplicationFactor())+" its targeted faults no longer produce it (docs/replication.md lists the scenarios that keep their story)")
	}
	s0 := spec
	s0.Seed = 0
	tail, ok := strings.CutPrefix(s0.reproduce(), reproduceHead()+"0")
	if !ok {
		panic("scenarios: a reproduce command that does not start with " + reproduceHead())
	}
	return &Resolved{Resolved: *wr, reproduceTail: tail}, nil
}

// Run runs one simulation. The error is a configuration error; invariant
// violations are reported in the result.
func Run(spec Spec) (*Result, error) {
	var r Runner
	return r.Run(spec)
}

// ReproduceCommand returns the one command that reproduces a run of a
// catalogue scenario with a scenario file's values, -bug IDs and -set
// values ([OverrideFlags]).
func ReproduceCommand(scenario string, seed uint64, file []params.KV, bugs []string, sets []params.KV) string {
	return reproduceHead() + strconv.FormatUint(seed, 10) + " -scenario " + scenario + OverrideFlags(file, bugs, sets)
}

// OverrideFlags returns the flags that set a scenario file's values, -bug
// IDs and -set values on a command line (each flag with a leading space;
// an enable.idempotence value is written as -idempotence). A command line
// has no file level, so the file's values are written as the first -set
// flags, all but those a -bug overrides: that gives every parameter the
// value the levels of precedence gave it.
func OverrideFlags(file []params.KV, bugs []string, sets []params.KV) string {
	var b strings.Builder
	for _, id := range bugs {
		fmt.Fprintf(&b, " -bug %s", shellQuote(id))
	}
	var all []params.KV
	for _, kv := range file {
		if !bugSets(bugs, kv.Key) {
			all = append(all, kv)
		}
	}
	for _, kv := range append(all, sets...) {
		if kv.Key == "enable.idempotence" {
			fmt.Fprintf(&b, " -idempotence=%s", kv.Value)
			continue
		}
		fmt.Fprintf(&b, " -set %s=%s", kv.Key, shellQuote(kv.Value))
	}
	return b.String()
}

// bugSets reports whether one of the bugs sets key.
func bugSets(bugs []string, key string) bool {
	for _, id := range bugs {
		b, _ := params.LookupBug(id)
		for _, kv := range b.Sets {
			if kv.Key == key {
				return true
			}
		}
	}
	return false
}

// reproduce returns the command that reproduces a run of s: its scenario
// or scenario file, seed, -bug and -set flags and -plan-file.
func (s *Spec) reproduce() string {
	cmd := ReproduceLine(s.Scenario.Name, s.ScenarioFile, s.PlanSource.PlanFile(), s.Seed, s.FileSets, s.Bugs, s.Sets) + PresetFlag(s.Preset)
	if s.MaxEvents != 0 {
		// The event limit changes where the run stops, so its trace.
		cmd += " -max-events " + strconv.FormatInt(s.MaxEvents, 10)
	}
	return cmd
}

// PresetFlag returns " -preset NAME", or "" for no preset. A preset's
// level is below the file's, -bug's and -set's whatever the flags'
// order, so it may follow them.
func PresetFlag(name string) string {
	if name == "" {
		return ""
	}
	return " -preset " + shellQuote(name)
}

// Reproduce returns the command that reproduces the spec's run, as
// [Result.Reproduce] has it: no output-format flag (-trace, -json), so
// that any can be appended.
func (s *Spec) Reproduce() string { return s.reproduce() }

// ReproduceLine returns the command that reproduces a run: of the
// catalogue scenario name, or of the scenario file scenarioFile (which
// holds its own values and plan, so file is then not written), with the
// -bug and -set flags of [OverrideFlags] and, when planFile is not "",
// -plan-file.
func ReproduceLine(name, scenarioFile, planFile string, seed uint64, file []params.KV, bugs []string, sets []params.KV) string {
	var cmd string
	if scenarioFile == "" {
		cmd = ReproduceCommand(name, seed, file, bugs, sets)
	} else {
		cmd = reproduceHead() + strconv.FormatUint(seed, 10) + " -scenario-file " + shellQuote(scenarioFile) + OverrideFlags(nil, bugs, sets)
	}
	if planFile != "" {
		cmd += " -plan-file " + shellQuote(planFile)
	}
	return cmd
}

// ShellQuote quotes s for a POSIX shell when it needs quoting.
func ShellQuote(s string) string { return shellQuote(s) }

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-:/+=,@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// PlanText returns the fault plan a spec's run would use, as text: the
// replayed plan of spec.PlanText, or the one the seed generates.
func PlanText(spec Spec) (string, error) {
	res, err := Resolve(spec)
	if err != nil {
		return "", err
	}
	s := spec.setup(res)
	return world.PlanText(&s)
}

// Invariants returns the names of the invariants every run judges, in
// report order.
func Invariants() []string { return check.Invariants() }

// Result is a run's report ([world.Result]): every field is deterministic
// in the Spec.
type Result = world.Result
