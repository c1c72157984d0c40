package explore

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/internal/shard"
	simnet "github.com/idemsim/idemsim/net"
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
	// Memory bounds what the search keeps, in bytes counted from the
	// sizes of what it stores (memory.go; 0: none): when the next
	// schedule would not fit, the search stops and the result is
	// incomplete, as for the budget.
	Memory int64
	// Prune skips the children of a schedule whose state was explored
	// already with at least as many faults to spend.
	Prune bool
	// Reduce skips the choice points a plan cannot name: a message whose
	// number on its link an earlier message of the same run had (a
	// response to a duplicated request), which a plan rule would take
	// the earlier one for (docs/explore.md, "Equivalent schedules").
	Reduce bool
	// All keeps searching after the first counterexample, up to
	// MaxFaults, for one counterexample per violated invariant.
	All bool
	// Parallel is the number of runs at once (>= 1).
	Parallel int
	// Branch runs the children of a schedule from its states saved at
	// time choice points (a node fault's at its point, a message
	// fault's at its message's time) instead of replaying each from the
	// start (-explore-branch, branch.go); the result is the same.
	Branch bool
	// Shard splits the search at the first choice points: shard i of n
	// explores the i-th, (i+n)-th, ... one-fault schedules and what
	// grows from them. Count 0 or 1: no split.
	Shard shard.Shard
	// Progress, if set, is called from the search's goroutine after
	// runs complete.
	Progress func(Progress)
	// MaxEvents bounds each run (0: the simulator's default).
	MaxEvents int64
	// FullMenu widens the menu (-explore-menu full): pause, crash and
	// stall lengths around the scenario's timeouts, clean restarts of
	// brokers, stalls and drifts (Menu).
	FullMenu bool

	// onSchedule, if set (tests), is called with each schedule's plan
	// text as it is handed to a worker, in the search's order.
	onSchedule func(plan string)
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
	// PauseFor. With the full menu, Lengths replaces both: every crash
	// downtime, pause and stall is each of them.
	Crash, Pause   bool
	Down, PauseFor time.Duration
	// Shutdown: a broker's controlled shutdown, down for each downtime
	// a crash is (a replicated world, and only when fault.kinds names
	// shutdown: "all" leaves it out).
	Shutdown bool
	// Elect: an operator's preferred-leader election of every partition;
	// Reassign: an operator's reassignment of partition 0 to Reassign's
	// brokers (its initial replicas shifted by one broker; a replicated
	// world, only when fault.kinds names elect-preferred or reassign).
	// Each is offered once at every time choice point.
	Elect    bool
	Reassign []string
	// SlowPoll: a group member's processing step without a poll, of each
	// of SlowPolls; MuteHeartbeat: its heartbeat thread silent for each
	// of Mutes (a group application, only when fault.kinds names
	// slow-poll or mute-heartbeat). The basic menu offers one length just
	// past max.poll.interval.ms (session.timeout.ms), the full menu one
	// on either side of it.
	SlowPolls, Mutes []time.Duration
	// The full menu's (-explore-menu full): Lengths are the downtimes,
	// pauses and stalls offered, shortest first; Clean offers a broker's
	// clean restart beside the unclean one; Stall stalls a server's
	// request handlers; Drift makes a process's timers run DriftPPM
	// slow or fast.
	Full     bool
	Lengths  []time.Duration
	Clean    bool
	Stall    bool
	Drift    bool
	DriftPPM int32
	// End is the plan's end: no fault after it.
	End time.Duration
}

// lengths returns the downtimes and pauses the menu offers.
func (m *Menu) lengths(pause bool) []time.Duration {
	if m.Full {
		return m.Lengths
	}
	if pause {
		return []time.Duration{m.PauseFor}
	}
	return []time.Duration{m.Down}
}

// fullDriftPPM is the full menu's drift rate: 200 ppm, a poor crystal's
// error (faults.MaxDriftPPM bounds what a plan may say).
const fullDriftPPM = 200

// fullLengths returns the full menu's lengths: fault.max_duration, and
// just below and just above (a tenth) request.timeout.ms, and for a
// transactional producer just above transaction.timeout.ms: a fault on
// either side of a timeout is what makes it fire or not.
func fullLengths(maxDur, request, txn time.Duration) []time.Duration {
	ls := []time.Duration{maxDur, request - request/10, request + request/10}
	if txn > 0 {
		ls = append(ls, txn+txn/10)
	}
	slices.Sort(ls)
	return slices.Compact(ls)
}

// String lists the menu, e.g. "drop, delay, crash (10s down), pause 10s".
func (m Menu) String() string {
	if m.Full {
		return m.fullString()
	}
	s := m.messageFaults()
	if m.Crash {
		s = append(s, "crash ("+m.Down.String()+" down)")
	}
	if m.Pause {
		s = append(s, "pause "+m.PauseFor.String())
	}
	if m.Shutdown {
		s = append(s, "shutdown ("+m.Down.String()+" down)")
	}
	s = m.operatorFaults(s)
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}

// memberFaults appends the group members' faults on the menu.
func (m Menu) memberFaults(s []string) []string {
	for _, k := range []struct {
		name string
		ls   []time.Duration
	}{{"slow-poll ", m.SlowPolls}, {"mute-heartbeat ", m.Mutes}} {
		if len(k.ls) > 0 {
			var ls []string
			for _, l := range k.ls {
				ls = append(ls, l.String())
			}
			s = append(s, k.name+"(members) "+strings.Join(ls, ", "))
		}
	}
	return s
}

// operatorFaults appends the operator actions on the menu, and the
// group members' faults.
func (m Menu) operatorFaults(s []string) []string {
	s = m.memberFaults(s)
	if m.Elect {
		s = append(s, "elect-preferred")
	}
	if len(m.Reassign) > 0 {
		s = append(s, "reassign p0 "+strings.Join(m.Reassign, ","))
	}
	return s
}

// messageFaults lists the message faults on the menu, in the menu's
// order.
func (m Menu) messageFaults() []string {
	var s []string
	for _, k := range []struct {
		on   bool
		name string
	}{{m.Drop, "drop"}, {m.Delay, "delay"}, {m.Duplicate, "duplicate"}, {m.Reject, "reject"}} {
		if k.on {
			s = append(s, k.name)
		}
	}
	return s
}

// fullString lists a full menu, e.g. "drop, delay, crash (10s, 27s, 33s
// down; brokers clean or unclean), pause, stall (servers) 10s, 27s, 33s,
// drift ±200ppm".
func (m Menu) fullString() string {
	var ls []string
	for _, l := range m.Lengths {
		ls = append(ls, l.String())
	}
	lens := strings.Join(ls, ", ")
	s := m.messageFaults()
	if m.Crash {
		c := "crash (" + lens + " down"
		if m.Clean {
			c += "; brokers clean or unclean"
		}
		s = append(s, c+")")
	}
	if m.Pause {
		s = append(s, "pause "+lens)
	}
	if m.Shutdown {
		s = append(s, "shutdown (brokers) "+lens+" down")
	}
	s = m.operatorFaults(s)
	if m.Stall {
		s = append(s, "stall (servers) "+lens)
	}
	if m.Drift {
		s = append(s, "drift ±"+strconv.Itoa(int(m.DriftPPM))+"ppm")
	}
	if len(s) == 0 {
		return "nothing"
	}
	return "full: " + strings.Join(s, ", ")
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

// checkLinks accepts per-link latencies (net.link.latency) that draw
// nothing: a constant distribution without a tail. Each such link runs
// at its own base latency, as in a seed's run, so a scenario's topology
// (a far zone, a slow coordinator link) stays what the scenario says;
// a random link would be a random fault source the explorer cannot
// switch off without changing the link. The latency's Draw takes no
// random number for them, so the network's stream is not touched.
func checkLinks(links []simnet.LinkLatency) error {
	for _, l := range links {
		what := ""
		switch {
		case l.Latency.Dist != simnet.Constant:
			what = l.Latency.Dist.String()
		case l.Latency.TailProb != 0:
			what = "constant with tail_prob=" + strconv.FormatFloat(l.Latency.TailProb, 'g', -1, 64)
		default:
			continue
		}
		return fmt.Errorf("-explore: net.link.latency %s>%s is %s, a random source (allowed: constant links without a tail, e.g. %q)",
			l.From, l.To, what, l.From+">"+l.To+" constant base="+l.Latency.Base.String())
	}
	return nil
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
	if cfg.Memory < 0 {
		return nil, fmt.Errorf("-explore-memory %d is not allowed (allowed: a size >= 1 byte, or 0 for no bound)", cfg.Memory)
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
	if err := checkLinks(c.Net.Links); err != nil {
		return nil, err
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
		Shutdown:  kinds&faults.GenShutdown != 0 && c.ReplicationFactor() > 1,
		Elect:     kinds&faults.GenElectPreferred != 0 && c.ReplicationFactor() > 1,
	}
	if kinds&faults.GenReassign != 0 && c.ReplicationFactor() > 1 {
		// p0's replicas are b1 and the next ones; the target starts one
		// broker later (a reorder when every broker holds a copy).
		for i := range c.ReplicationFactor() {
			m.Reassign = append(m.Reassign, "b"+strconv.Itoa((i+1)%c.Brokers+1))
		}
	}
	around := func(t time.Duration) []time.Duration {
		if cfg.FullMenu {
			return []time.Duration{t - t/10, t + t/10}
		}
		return []time.Duration{t + t/10}
	}
	if kinds&faults.GenSlowPoll != 0 && c.App.Mode.Grouped() {
		m.SlowPolls = around(c.App.MaxPollInterval)
	}
	if kinds&faults.GenMuteHeartbeat != 0 && c.App.Mode.Grouped() {
		m.Mutes = around(c.App.SessionTimeout)
	}
	if cfg.FullMenu {
		var txn time.Duration
		if res.Producer.TransactionalID != "" {
			txn = res.Producer.TransactionTimeout
		}
		m.Full = true
		m.Lengths = fullLengths(c.Fault.MaxDuration, res.Producer.RequestTimeout, txn)
		m.Clean = m.Crash
		// fault.kinds=all (the default) leaves stall out for the
		// generator's sake (earlier seeds keep their plans); the full
		// menu offers it unless fault.kinds names kinds without it.
		m.Stall = kinds&faults.GenStall != 0 || res.Values.Get("fault.kinds") == "all"
		m.Drift = kinds&faults.GenDrift != 0
		m.DriftPPM = fullDriftPPM
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
