package explore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemsim/idemsim/internal/shard"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Format is the summary.json format of an exploration.
const Format = 1

// Result is an exploration's outcome; it is also summary.json (with
// -out). It holds no wall-clock time: the same exploration gives the same
// bytes.
type Result struct {
	Format       int         `json:"format"`
	Kind         string      `json:"kind"` // "explore"
	Scenario     string      `json:"scenario"`
	ScenarioFile string      `json:"scenario_file,omitempty"`
	Version      string      `json:"simulator_version"`
	Seed         uint64      `json:"seed"`
	Idempotence  bool        `json:"idempotence"`
	File         []params.KV `json:"file"`
	Bugs         []string    `json:"bugs"`
	Sets         []params.KV `json:"sets"`
	// Fixed are the -set values that switched the random sources off.
	Fixed     []params.KV `json:"fixed_sets"`
	MaxFaults int         `json:"max_faults"`
	Prune     bool        `json:"prune"`
	// ReduceOff: -explore-reduce=false (left out when the reduction is
	// on, so that the summaries of earlier explorations stay as they
	// were).
	ReduceOff bool  `json:"reduce_off,omitempty"`
	All       bool  `json:"all"`
	Budget    int64 `json:"budget"`
	// Memory is what the search kept (memory.go), with its bound.
	Memory Memory       `json:"memory"`
	Menu   string       `json:"menu"`
	Shard  *resultShard `json:"shard,omitempty"`
	// Merged is the number of shards a merged result adds up.
	Merged int `json:"merged_shards,omitempty"`

	// Complete: the search ran every schedule it set out to (up to
	// MaxFaults, or the level of the first counterexample); Stop says
	// why not ("budget", "memory", "interrupted").
	Complete bool   `json:"complete"`
	Stop     string `json:"stop,omitempty"`
	// Verdict is "clean", "violated" or "incomplete".
	Verdict string `json:"verdict"`
	// Schedules, States and Pruned add up the levels; Remaining is a
	// lower bound on the schedules left unrun when the search stopped
	// early.
	Schedules int64 `json:"schedules"`
	States    int64 `json:"distinct_states"`
	Pruned    int64 `json:"pruned"`
	// Skipped: schedules not run because a plan could not name their
	// last fault's message apart from an earlier one (Config.Reduce).
	Skipped   int64   `json:"skipped,omitempty"`
	Remaining int64   `json:"remaining_at_least"`
	Levels    []Level `json:"levels"`
	// Depth is the largest number of faults every schedule of which was
	// explored (-1: not even the fault-free run).
	Depth           int              `json:"depth"`
	Invariants      []Verdict        `json:"invariants"`
	Counterexamples []Counterexample `json:"counterexamples"`
	Statement       string           `json:"statement"`
	// Timing is where the wall-clock time went; not in summary.json.
	Timing Timing `json:"-"`
}

// resultShard is the shard an exploration's summary.json records: a
// [shard.Shard] whose fields the file spells "Index" and "Count" (a
// sweep's summary.json spells them "index" and "count").
type resultShard struct{ Index, Count int }

// shard returns s as a [shard.Shard] (nil: no shard).
func (s *resultShard) shard() *shard.Shard {
	if s == nil {
		return nil
	}
	sh := shard.Shard(*s)
	return &sh
}

// Verdict is one invariant's result.
type Verdict struct {
	Name string `json:"name"`
	// Holds: no schedule explored breaks it. Faults is then the bound it
	// holds up to (Depth), else the faults of its shortest
	// counterexample.
	Holds  bool `json:"holds"`
	Faults int  `json:"faults"`
}

// Counterexample is the shortest schedule found that breaks an invariant.
type Counterexample struct {
	Invariant string `json:"invariant"`
	Faults    int    `json:"faults"`
	Events    int64  `json:"events"`
	// Plan is the schedule as a fault plan (docs/plans.md).
	Plan      string    `json:"plan"`
	Violation violation `json:"violation"`
	// Also lists every invariant the schedule breaks.
	Also []string `json:"also"`
	// File is the plan file's name (in the -out directory or the
	// current one) and Reproduce its command; TraceHash the run's.
	File      string `json:"file,omitempty"`
	Diagram   string `json:"diagram,omitempty"`
	Reproduce string `json:"reproduce,omitempty"`
	TraceHash string `json:"trace_hash,omitempty"`
}

// Run explores cfg's scenario. It returns an error for a configuration
// the simulator refuses; a cancelled ctx stops the search with a partial,
// incomplete result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	s, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	e := &engine{s: s, ctx: ctx, visited: map[world.StateHash]visit{}, best: map[string]*candidate{}, progress: cfg.Progress}
	e.mem = Memory{Bound: cfg.Memory, StateBytes: visitBytes}
	e.timing.Workers = s.cfg.Parallel
	start := time.Now()
	e.search()
	e.timing.Wall = time.Since(start)
	e.timing.Branch = e.branch
	e.mem.SavedStates, e.mem.SavedStateBytes = e.branch.Saves, e.branch.SavedMax
	if e.err != nil {
		return nil, e.err
	}
	c := s.cfg
	r := &Result{Format: Format, Kind: "explore", Scenario: c.Scenario.Name, ScenarioFile: c.ScenarioFile, Version: scenarios.Version,
		Seed: c.Seed, Idempotence: s.idempotence, File: nonNil(c.File), Bugs: nonNilS(c.Bugs), Sets: nonNil(c.Sets), Fixed: nonNil(s.fixed),
		MaxFaults: c.MaxFaults, Prune: c.Prune, ReduceOff: !c.Reduce, All: c.All, Budget: c.Budget, Menu: s.menu.String(),
		Stop: e.stop, Levels: e.levels, Remaining: e.remain, Timing: e.timing, Memory: e.mem}
	if c.Shard.Count > 1 {
		sh := resultShard(c.Shard)
		r.Shard = &sh
	}
	for inv, b := range e.best {
		r.Counterexamples = append(r.Counterexamples, Counterexample{Invariant: inv, Faults: b.key.faults, Events: b.key.events,
			Plan: s.plan(b.s), Violation: b.v, Also: b.also})
	}
	r.finish()
	r.Timing.Schedules, r.Timing.States = r.Schedules, r.States
	return r, nil
}

func nonNil(kv []params.KV) []params.KV {
	if kv == nil {
		return []params.KV{}
	}
	return kv
}

func nonNilS(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// finish computes the totals, the verdicts and the statement from the
// levels and the counterexamples.
func (r *Result) finish() {
	r.Schedules, r.States, r.Pruned, r.Skipped = 0, 0, 0, 0
	r.Depth = -1
	for _, l := range r.Levels {
		r.Schedules += l.Schedules
		r.States += l.States
		r.Pruned += l.Pruned
		r.Skipped += l.Skipped
		if l.Complete && l.Faults == r.Depth+1 {
			r.Depth = l.Faults
		}
	}
	slices.SortFunc(r.Counterexamples, func(a, b Counterexample) int {
		ka, kb := a.key(), b.key()
		if ka.less(kb) {
			return -1
		}
		if kb.less(ka) {
			return 1
		}
		return strings.Compare(a.Invariant, b.Invariant)
	})
	r.Complete = r.Stop == ""
	if r.Complete {
		// Every schedule up to the bound ran (a level with no schedules
		// left ends the search early).
		r.Depth = r.MaxFaults
		if !r.All && len(r.Counterexamples) > 0 {
			r.Depth = r.Counterexamples[0].Faults
		}
	}
	r.Invariants = r.Invariants[:0]
	var holds, broken []string
	for _, inv := range scenarios.Invariants() {
		v := Verdict{Name: inv, Holds: true, Faults: r.Depth}
		for _, ce := range r.Counterexamples {
			if slices.Contains(ce.Also, inv) && (v.Holds || ce.Faults < v.Faults) {
				v.Holds, v.Faults = false, ce.Faults
			}
		}
		r.Invariants = append(r.Invariants, v)
		if v.Holds {
			holds = append(holds, inv)
		} else {
			broken = append(broken, fmt.Sprintf("%s violated (%s)", inv, plural(v.Faults, "fault")))
		}
	}
	switch {
	case len(r.Counterexamples) > 0:
		r.Verdict = "violated"
	case !r.Complete:
		r.Verdict = "incomplete"
	default:
		r.Verdict = "clean"
	}
	r.Statement = r.statement(holds, broken)
}

func (c Counterexample) key() key {
	return key{faults: c.Faults, events: c.Events, text: strings.TrimSuffix(c.Plan, endLine(c.Plan))}
}

// endLine returns the plan's "end" line.
func endLine(plan string) string {
	if i := strings.LastIndex(plan, "end "); i >= 0 {
		return plan[i:]
	}
	return ""
}

func (r *Result) statement(holds, broken []string) string {
	states := "pruning off"
	if r.Prune {
		states = Count(r.States) + " distinct states, " + Count(r.Pruned) + " pruned"
	}
	if r.Skipped > 0 {
		// Only when a duplicated request repeats a message number, so
		// that other explorations keep their statements.
		states += ", " + Count(r.Skipped) + " skipped as repeated message numbers"
	}
	bound := r.MaxFaults
	if !r.All && len(r.Counterexamples) > 0 {
		bound = r.Counterexamples[0].Faults
	}
	var b strings.Builder
	if !r.Complete {
		why := "the budget ran out"
		switch r.Stop {
		case "interrupted":
			why = "interrupted"
		case "memory":
			why = "memory bound reached: " + Size(r.Memory.Bound) + ", -explore-memory"
		}
		fmt.Fprintf(&b, "incomplete (%s): %s of at least %s schedules with ≤ %s (%s)", why, Count(r.Schedules), Count(r.Schedules+r.Remaining), plural(bound, "fault"), states)
		if r.Depth >= 0 {
			fmt.Fprintf(&b, "; complete with ≤ %s", plural(r.Depth, "fault"))
		}
	} else {
		fmt.Fprintf(&b, "explored %s (%s) with ≤ %s", plural64(r.Schedules, "schedule"), states, plural(bound, "fault"))
	}
	b.WriteString(": ")
	var parts []string
	if len(broken) > 0 {
		parts = append(parts, strings.Join(broken, ", "))
	}
	if len(holds) > 0 {
		verb := "hold"
		if len(holds) == 1 {
			verb = "holds"
		}
		if !r.Complete {
			verb += " in the schedules explored"
		}
		parts = append(parts, strings.Join(holds, ", ")+" "+verb)
	}
	b.WriteString(strings.Join(parts, "; "))
	return b.String()
}

// Count formats n with thousands separators: 12,650.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

func plural(n int, word string) string { return plural64(int64(n), word) }

func plural64(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return Count(n) + " " + word + "s"
}

// JSON returns the summary as indented JSON with a final newline.
func (r *Result) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ParseResult reads a summary.json of an exploration.
func ParseResult(b []byte) (*Result, error) {
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if r.Kind != "explore" {
		return nil, fmt.Errorf("not the summary of an exploration (kind %q)", r.Kind)
	}
	if r.Format != Format {
		return nil, fmt.Errorf("summary format %d (this simulator reads %d)", r.Format, Format)
	}
	return &r, nil
}

// Spec returns the spec that replays a plan of this exploration: the
// scenario (a catalogue scenario, or sc when given), its file values, -bug
// and -set values and the fixed ones.
func (r *Result) Spec(sc *scenarios.Scenario, plan string) (scenarios.Spec, error) {
	if sc == nil {
		var err error
		if sc, err = scenarios.Lookup(r.Scenario); err != nil {
			return scenarios.Spec{}, err
		}
	}
	return scenarios.Spec{Scenario: sc, Seed: r.Seed, FileSets: r.File, Bugs: r.Bugs, Sets: slices.Concat(r.Sets, r.Fixed),
		ScenarioFile: r.ScenarioFile, PlanText: plan}, nil
}
