package explore

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/internal/shard"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/sim"
)

// Config is one exploration.
type Config struct {
	Scenario *scenarios.Scenario
	// ScenarioFile is the scenario file the scenario came from, if any
	// (for the reproduce command); File are its values.
	ScenarioFile string
	File         []params.KV
	// Bugs are the -bug IDs; Sets the command line's values
	// (enable.idempotence first, then each -set).
	Bugs []string
	Sets []params.KV
	// Seed is the run seed: with the random fault sources off it draws
	// only the producers' backoff jitter.
	Seed uint64
	// MaxFaults is K: every schedule of at most K faults is explored.
	MaxFaults int
	// Budget bounds the runs (0: none); the result is then incomplete.
	Budget int64
	// Prune skips the children of a schedule whose state was explored
	// already with at least as many faults to spend.
	Prune bool
	// All keeps searching after the first counterexample, up to
	// MaxFaults, for one counterexample per violated invariant.
	All bool
	// Parallel is the number of runs at once (>= 1).
	Parallel int
	// Shard splits the search at the first choice points: shard i of n
	// explores the i-th, (i+n)-th, ... one-fault schedules and what
	// grows from them. Count 0 or 1: no split.
	Shard shard.Shard
	// Progress, if set, is called from the search's goroutine after
	// runs complete.
	Progress func(Progress)
	// MaxEvents bounds each run (0: the simulator's default).
	MaxEvents int64
}

// Progress reports a search under way.
type Progress struct {
	// Level is the number of faults of the schedules being run.
	Level int
	// Runs is the number of schedules run so far, in all levels.
	Runs int64
}

// MaxK bounds MaxFaults: beyond it the number of schedules explodes.
const MaxK = 8

// Menu is what an exploration may inject, derived from the scenario's
// parameters (docs/explore.md).
type Menu struct {
	// Drop: drop a message (tcp: the connection breaks with it).
	Drop bool
	// Delay: hold a message until a message on another connection has
	// arrived ("delay").
	Delay bool
	// Duplicate: deliver a message twice (datagram mode only).
	Duplicate bool
	// Reject: a broker answers a produce request NOT_ENOUGH_REPLICAS
	// (when the scenario draws transient errors).
	Reject bool
	// Crash: crash a node, restarted Down later; Pause: pause a node for
	// Pause.
	Crash, Pause   bool
	Down, PauseFor time.Duration
	// End is the plan's end: no fault after it.
	End time.Duration
}

// String lists the menu, e.g. "drop, delay, crash (10s down), pause 10s".
func (m Menu) String() string {
	var s []string
	if m.Drop {
		s = append(s, "drop")
	}
	if m.Delay {
		s = append(s, "delay")
	}
	if m.Duplicate {
		s = append(s, "duplicate")
	}
	if m.Reject {
		s = append(s, "reject")
	}
	if m.Crash {
		s = append(s, "crash ("+m.Down.String()+" down)")
	}
	if m.Pause {
		s = append(s, "pause "+m.PauseFor.String())
	}
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}

// randomOff are the parameters that switch the random fault sources off,
// with the values an exploration runs with.
var randomOff = []params.KV{
	{Key: "net.latency", Value: "constant"},
	{Key: "net.latency.tail_prob", Value: "0"},
	{Key: "net.request_loss", Value: "0"},
	{Key: "net.response_loss", Value: "0"},
	{Key: "net.duplicate", Value: "0"},
	{Key: "net.reorder", Value: "0"},
	{Key: "broker.transient_error", Value: "0"},
	{Key: "broker.processing.spread", Value: "0s"},
	{Key: "fault.realized", Value: "false"},
}

// setup is what a search derives from its Config before it runs.
type setup struct {
	cfg  Config
	menu Menu
	// fixed are the -set values that switch the random sources off (only
	// those that change something), appended to the command line's.
	fixed []params.KV
	// base is the spec every schedule's run starts from.
	base scenarios.Spec
	// idempotence is the run's effective enable.idempotence.
	idempotence bool
	endText     string
}

// prepare checks the configuration and derives the menu and the fixed
// parameters.
func prepare(cfg Config) (*setup, error) {
	if cfg.Scenario == nil {
		return nil, errors.New("no scenario")
	}
	if cfg.MaxFaults < 0 || cfg.MaxFaults > MaxK {
		return nil, fmt.Errorf("-max-faults %d is not allowed (allowed: 0..%d)", cfg.MaxFaults, MaxK)
	}
	if cfg.Budget < 0 {
		return nil, fmt.Errorf("-explore-budget %d is not allowed (allowed: >= 1, or 0 for none)", cfg.Budget)
	}
	if cfg.Parallel < 1 {
		cfg.Parallel = 1
	}
	if cfg.Shard.Count == 0 {
		cfg.Shard.Count = 1
	}
	for _, kv := range append(append([]params.KV{}, cfg.File...), cfg.Sets...) {
		if kv.Key == "fault.count" && kv.Value != "0" {
			return nil, errors.New("-explore: fault.count is not allowed: the explorer's faults replace the seed's plan")
		}
	}
	s := &setup{cfg: cfg}
	spec := scenarios.Spec{Scenario: cfg.Scenario, Seed: cfg.Seed, FileSets: cfg.File, Bugs: cfg.Bugs, Sets: cfg.Sets, ScenarioFile: cfg.ScenarioFile}
	res, err := scenarios.Resolve(spec)
	if err != nil {
		return nil, err
	}
	c := res.Config
	if p := c.Net.DisconnectNotice; p != 0 && p != 1 {
		return nil, fmt.Errorf("-explore: net.disconnect_notice=%v is random (allowed: 0 or 1)", p)
	}
	if len(c.Net.Links) > 0 {
		return nil, errors.New("-explore: net.link.latency is not allowed (the explorer runs every link at the constant net.latency.base)")
	}
	kinds := c.Fault.Kinds
	m := Menu{
		Drop:      kinds&faults.GenDrop != 0,
		Delay:     kinds&(faults.GenCut|faults.GenCutOneWay) != 0,
		Crash:     kinds&faults.GenCrash != 0,
		Pause:     kinds&faults.GenPause != 0,
		Down:      c.Fault.MaxDuration,
		PauseFor:  c.Fault.MaxDuration,
		Duplicate: kinds&faults.GenDrop != 0 && c.Net.Mode.String() == "datagram",
		Reject:    kinds&faults.GenDrop != 0 && c.Broker.TransientError > 0,
	}
	for _, kv := range randomOff {
		if res.Values.Get(kv.Key) != kv.Value {
			s.fixed = append(s.fixed, kv)
		}
	}
	s.idempotence = res.Producer.EnableIdempotence
	s.base = spec
	s.base.Sets = append(append([]params.KV{}, cfg.Sets...), s.fixed...)
	s.base.MaxEvents = cfg.MaxEvents
	// The plan's end without the scenario's own faults: the default end
	// of an empty plan.
	probe := s.base
	probe.PlanText = "# explore\n"
	text, err := scenarios.PlanText(probe)
	if err != nil {
		return nil, err
	}
	p, err := faults.Parse(text)
	if err != nil {
		return nil, err
	}
	m.End = p.End
	s.endText = "end " + p.End.String() + "\n"
	s.menu = m
	s.cfg = cfg
	return s, nil
}

// atTime formats a simulated time as a plan time.
func atTime(t sim.Time) string { return time.Duration(t).String() }
