package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/idemsim/idemsim/internal/shard"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Format is the version of the summary.json layout.
const Format = 1

// Invariants are always listed in a summary, violated or not; others
// appear when violated.
var Invariants = scenarios.Invariants()

// Summary is a sweep's report: what summary.json and -json hold. It has no
// wall-clock times, host names or paths, so equal sweeps give equal bytes.
type Summary struct {
	Format   int          `json:"format"`
	Scenario string       `json:"scenario"`
	Version  string       `json:"simulator_version"`
	BaseSeed uint64       `json:"base_seed"`
	Runs     int          `json:"runs"`
	Shard    *shard.Shard `json:"shard,omitempty"`
	Complete bool         `json:"complete"`
	// Out is the -out directory as the command was given it, which the
	// regenerate command names ([Summary.Regenerate]); "" for none.
	Out string `json:"-"`
	// ScenarioFile is the scenario file the sweep ran, if any (its
	// values are File), and PlanFile the -plan-file every run replayed.
	ScenarioFile string      `json:"scenario_file,omitempty"`
	PlanFile     string      `json:"plan_file,omitempty"`
	File         []params.KV `json:"file,omitempty"` // the scenario file's values, if any
	Bugs         []string    `json:"bugs,omitempty"` // the -bug IDs, if any
	Sets         []params.KV `json:"sets"`
	Axes         []Axis      `json:"axes"`
	Modes        []string    `json:"modes"`
	FailingK     int         `json:"failing_k"`
	Preset       string      `json:"preset,omitempty"` // the -preset name, if any
	Points       []Point     `json:"points"`
	// Crossing is the -crossing metric's 50% crossing, if asked for.
	Crossing *Crossing `json:"crossing,omitempty"`
	// ChartsSkipped names the charts left out because their metric is
	// undefined at every point (fencing without a superseded instance,
	// OUT_OF_ORDER_SEQUENCE_NUMBER without the error) or
	// zero at every point.
	ChartsSkipped []string `json:"charts_skipped,omitempty"`
	// TraceDigest hashes every (point, mode)'s sum of trace hashes, in
	// order: two sweeps that ran the same runs have the same digest.
	TraceDigest string `json:"trace_hash_digest"`
}

// Point is one point of the axes' product.
type Point struct {
	Values []params.KV `json:"values"`
	// Versions names the Kafka versions the point's runs modelled, e.g.
	// "kafka=4.1 transaction.version=2".
	Versions string            `json:"versions"`
	Modes    map[string]*Stats `json:"modes"`
}

// Stats is one (point, mode): counts, proportions and rates with 95%
// intervals, and the exact state they were computed from.
type Stats struct {
	Runs               int64           `json:"runs"`
	AnyViolation       Prop            `json:"any_violation"`
	Violations         map[string]Prop `json:"violations"`
	Rates              map[string]Rate `json:"rates"`
	ZombieWritesPerRun Mean            `json:"zombie_writes_per_run"`
	// OffsetFetchStallMs is the mean per run of offset_fetch_stall_ms
	// (0 for a run without a stall), when any run stalled.
	OffsetFetchStallMs *Mean            `json:"offset_fetch_stall_ms,omitempty"`
	Errors             map[string]int64 `json:"errors"`
	ClientEpochBumps   int64            `json:"client_epoch_bumps"`
	CoordEpochBumps    int64            `json:"coordinator_epoch_bumps"`
	LatencyMs          Latency          `json:"latency_ms"`
	Failing            []Failing        `json:"failing"`
	// State is the integer state that merging adds up.
	State *Acc `json:"state"`
}

// Failing is one failing seed with the command that reproduces it.
type Failing struct {
	Seed      uint64 `json:"seed"`
	Invariant string `json:"invariant"`
	Reproduce string `json:"reproduce"`
}

// Summarize computes the summary of a state. It is a pure function of the
// state's integers.
func (st *State) Summarize() *Summary {
	s := &Summary{Format: Format, Scenario: st.Scenario, Version: scenarios.Version, BaseSeed: st.Base,
		Runs: st.Runs, Shard: st.Shard, Complete: st.Complete, File: st.File, Bugs: st.Bugs, Sets: st.Sets, Axes: st.Axes,
		FailingK: st.FailingK, Preset: st.Preset, ScenarioFile: st.ScenarioFile, PlanFile: st.PlanFile}
	if s.Axes == nil {
		s.Axes = []Axis{}
	}
	for _, on := range st.Modes {
		s.Modes = append(s.Modes, modeName(on))
	}
	for p, accs := range st.Acc {
		pt := Point{Values: PointSets(st.Axes, p), Modes: map[string]*Stats{}}
		for m, a := range accs {
			if pt.Versions == "" {
				pt.Versions = a.Versions
			}
			on := st.Modes[m]
			sets := runSets(st.Sets, st.Axes, p, on)
			pt.Modes[modeName(on)] = stats(a, func(seed uint64) string {
				return scenarios.ReproduceLine(st.Scenario, st.ScenarioFile, st.PlanFile, seed, st.File, st.Bugs, sets) + scenarios.PresetFlag(st.Preset)
			})
		}
		s.Points = append(s.Points, pt)
	}
	if st.Crossing != "" {
		s.Crossing = s.crossing(st.Crossing)
	}
	_, s.ChartsSkipped = s.charts()
	h := fnv.New64a()
	for _, pt := range s.Points {
		for _, m := range s.Modes {
			fmt.Fprintf(h, "%016x\n", uint64(pt.Modes[m].State.TraceSum))
		}
	}
	s.TraceDigest = world.FormatTraceHash(h.Sum64())
	return s
}

// stats computes one (point, mode)'s statistics; reproduce returns a
// failing seed's reproduce command.
func stats(a *Acc, reproduce func(seed uint64) string) *Stats {
	n := a.Runs
	s := &Stats{Runs: n, AnyViolation: wilson(a.AnyViolation, n), Violations: map[string]Prop{},
		Rates: map[string]Rate{
			"duplicate_rate":  ratio(a.Duplicate, n),
			"reorder_rate":    ratio(a.Reorder, n),
			"lost_acked_rate": ratio(a.LostAcked, n),
			"fencing_rate":    ratio(a.Fencing, n),
		},
		ZombieWritesPerRun: mean(a.ZombieWrites, n),
		Errors:             map[string]int64{},
		ClientEpochBumps:   a.ClientBumps,
		CoordEpochBumps:    a.CoordBumps,
		LatencyMs:          latency(a.Latency),
		Failing:            []Failing{},
		State:              a,
	}
	if a.OffsetStall != nil {
		m := mean(*a.OffsetStall, n)
		s.OffsetFetchStallMs = &m
	}
	for _, inv := range Invariants {
		s.Violations[inv] = wilson(a.Violations[inv], n)
	}
	for inv, k := range a.Violations {
		s.Violations[inv] = wilson(k, n)
	}
	for name, m := range a.Errors {
		s.Errors[name] = m.Sum
	}
	invs := make([]string, 0, len(a.Failing))
	for inv := range a.Failing {
		invs = append(invs, inv)
	}
	slices.Sort(invs)
	for _, inv := range invs {
		for _, seed := range a.Failing[inv] {
			s.Failing = append(s.Failing, Failing{Seed: seed, Invariant: inv, Reproduce: reproduce(seed)})
		}
	}
	return s
}

// JSON returns the summary as indented JSON with a final newline.
func (s *Summary) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ParseSummary reads a summary.json.
func ParseSummary(b []byte) (*Summary, error) {
	var s Summary
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	if s.Format != Format {
		return nil, fmt.Errorf("summary format %d is not supported (want %d)", s.Format, Format)
	}
	return &s, nil
}

// state rebuilds the exact state from a parsed summary.
func (s *Summary) state() (*State, error) {
	st := &State{Scenario: s.Scenario, Base: s.BaseSeed, Runs: s.Runs, File: s.File, Bugs: s.Bugs, Sets: s.Sets, Axes: s.Axes,
		FailingK: s.FailingK, Shard: s.Shard, Complete: s.Complete, Preset: s.Preset, ScenarioFile: s.ScenarioFile, PlanFile: s.PlanFile}
	if s.Crossing != nil {
		st.Crossing = s.Crossing.Metric
	}
	if st.Sets == nil {
		st.Sets = []params.KV{}
	}
	for _, m := range s.Modes {
		if m != "off" && m != "on" {
			return nil, fmt.Errorf("unknown mode %q", m)
		}
		st.Modes = append(st.Modes, m == "on")
	}
	if len(s.Points) != numPoints(s.Axes) {
		return nil, fmt.Errorf("%d points, want %d", len(s.Points), numPoints(s.Axes))
	}
	for _, pt := range s.Points {
		var accs []*Acc
		for _, m := range s.Modes {
			ms := pt.Modes[m]
			if ms == nil || ms.State == nil {
				return nil, fmt.Errorf("point %v lacks mode %s's state", pt.Values, m)
			}
			a := ms.State
			if a.Violations == nil {
				a.Violations = map[string]int64{}
			}
			if a.Errors == nil {
				a.Errors = map[string]*Moments{}
			}
			if a.Failing == nil {
				a.Failing = map[string][]uint64{}
			}
			accs = append(accs, a)
		}
		st.Acc = append(st.Acc, accs)
	}
	return st, nil
}

// SeedRange describes the sweep's seeds, e.g. "seeds 1..1000".
func (s *Summary) SeedRange() string {
	last := s.BaseSeed + uint64(s.Runs) - 1
	r := fmt.Sprintf("seeds %d..%d", s.BaseSeed, last)
	if s.Shard != nil {
		r += fmt.Sprintf(" (shard %s: every %d-th)", s.Shard, s.Shard.Count)
	}
	return r
}

// Command returns the command line that reruns the sweep.
func (s *Summary) Command() string {
	var b strings.Builder
	if s.ScenarioFile != "" {
		// The file holds its values and plan.
		fmt.Fprintf(&b, "%s -scenario-file %s -runs %d -seed %d", scenarios.Command(), scenarios.ShellQuote(s.ScenarioFile), s.Runs, s.BaseSeed)
	} else {
		fmt.Fprintf(&b, "%s -scenario %s -runs %d -seed %d", scenarios.Command(), s.Scenario, s.Runs, s.BaseSeed)
	}
	if len(s.Modes) == 1 {
		fmt.Fprintf(&b, " -idempotence=%t", s.Modes[0] == "on")
	}
	if s.Preset != "" {
		fmt.Fprintf(&b, " -preset %s", s.Preset)
	}
	if s.ScenarioFile != "" {
		b.WriteString(scenarios.OverrideFlags(nil, s.Bugs, s.Sets))
	} else {
		b.WriteString(scenarios.OverrideFlags(s.File, s.Bugs, s.Sets))
	}
	if s.PlanFile != "" {
		b.WriteString(" -plan-file " + scenarios.ShellQuote(s.PlanFile))
	}
	for _, a := range s.Axes {
		fmt.Fprintf(&b, " -vary %s", scenarios.ShellQuote(a.Spec))
	}
	if s.Crossing != nil {
		fmt.Fprintf(&b, " -crossing %s", scenarios.ShellQuote(s.Crossing.Metric))
	}
	return b.String()
}
