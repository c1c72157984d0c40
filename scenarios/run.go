package scenarios

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/sim"
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
	// event-log entries. A run that exceeds it stops with stop reason
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
	PlanSource PlanSource
	// Realize keeps the run's realized plan in Result.Realized
	// (realize.go); shrinking asks for it. Without it the random losses
	// are not recorded.
	Realize bool
	// Readers are made for the run and read its observation stream
	// (reader.go): the explain log (explain.Record), the history
	// (history.Record, docs/history.md). They change nothing in the run.
	Readers []MakeReader
	// Probe, if set, is called at the run's choice points (probe.go): an
	// explorer's hook. It changes nothing in the run.
	Probe Probe
	// Resolved, if set, is [Resolve] of this spec, made once for many
	// runs that differ only in Seed, PlanText and Probe (an explorer's, a
	// sweep point's); the run reads it and does not resolve again. Runs
	// on several goroutines may share it: nothing writes to it.
	Resolved *Resolved
	// HashCache, if set, is shared by the state hashes of runs made one
	// after another in one goroutine (statehash.go).
	HashCache *HashCache
}

// Result is a run's report: every field is deterministic in the Spec.
type Result struct {
	Scenario    string      `json:"scenario"`
	Seed        uint64      `json:"seed"`
	Idempotence bool        `json:"idempotence"`
	TraceHash   string      `json:"trace_hash"`
	Events      int64       `json:"events"`
	SimTimeNs   int64       `json:"sim_time_ns"`
	Stop        string      `json:"stop"`
	Params      []params.KV `json:"params"` // shared by the runs of one Resolved: read-only
	Bugs        []string    `json:"bugs"`   // the -bug IDs turned on, in order
	// Versions names the Kafka releases and the transaction protocol the
	// run modelled, e.g. "kafka=4.1 transaction.version=2".
	Versions    string   `json:"versions"`
	ConfigNotes []string `json:"config_notes"`
	// Counts are the checker's tallies: sent, acked, failed, pending,
	// appended, duplicates, reordered, lost_acked, aborted, txn_committed,
	// txn_aborted.
	check.Counts
	Abandoned   int64 `json:"abandoned"`
	Fenced      int64 `json:"fenced"`
	ZombieWrite int64 `json:"zombie_writes"`
	// ZombieAttempts counts produce batches a superseded instance got to
	// the broker; ZombieRejected those rejected for a stale epoch.
	ZombieAttempts int64 `json:"zombie_attempts"`
	ZombieRejected int64 `json:"zombie_rejected"`
	// ClientEpochBumps counts the epoch bumps producers made or asked
	// for; CoordinatorEpochBumps the bumps coordinators handed out in
	// InitProducerId answers (epochbumps.go), such as the one that fences
	// a paused instance when its replacement starts.
	ClientEpochBumps      int64             `json:"client_epoch_bumps"`
	CoordinatorEpochBumps int64             `json:"coordinator_epoch_bumps"`
	Errors                map[string]int64  `json:"errors"`
	Net                   NetStats          `json:"net"`
	Violations            []check.Violation `json:"violations"`
	// ViolationsCut counts the violations left out of Violations, whose
	// lists are cut at a few per invariant; CutBy is the same by
	// invariant.
	ViolationsCut int64            `json:"violations_cut"`
	CutBy         map[string]int64 `json:"-"`
	Reproduce     string           `json:"reproduce"`

	// Latencies are the send-to-ack times of acknowledged records, in
	// acknowledgement order (for sweeps and plots; not in the JSON).
	Latencies []time.Duration `json:"-"`
	// Trace is the timeline, when Spec.KeepTrace was set.
	Trace []string `json:"-"`
	// Plan is the run's fault plan, as text (docs/plans.md).
	Plan string `json:"-"`
	// Realized is Plan plus the losses the random sources drew, as plan
	// text (realize.go).
	Realized string `json:"-"`
}

// Failed reports whether any invariant was violated.
func (r *Result) HasViolations() bool { return len(r.Violations) > 0 }

// Resolved is a run's configuration, resolved once before the run
// starts.
type Resolved struct {
	// Values are the parameters as text, each with where it came from.
	Values *params.Values
	// Config is the same parameters, typed; Values.Config returns it too.
	Config *params.Config
	// Producer is the effective producer configuration, after Kafka's
	// rules.
	Producer model.ProducerConfig
	// Notes are Kafka's configuration notes, e.g. idempotence turned off
	// implicitly.
	Notes []string
	// params is Values.List(), made once: the runs that share this
	// resolution share it as their Result.Params (read-only).
	params []params.KV
	// versions is Config.Versions.String(), and reproduceTail what the
	// runs' reproduce command has after the seed, made once.
	versions, reproduceTail string
}

// reproduceHead is how every reproduce command starts; the seed follows.
const reproduceHead = "go run ./cmd/simulate -seed "

// Resolve applies the levels of precedence (docs/parameters.md) to the
// spec's scenario, weakest first: the parameters' defaults, the
// scenario's, the scenario file's values (spec.FileSets), the -bug
// settings (spec.Bugs) and the command line (spec.Sets). It then decodes
// the values into a typed [params.Config], once, and checks the producer and
// network configurations. The error is one line naming the key.
func Resolve(spec Spec) (*Resolved, error) {
	v := spec.Scenario.Values()
	if err := v.Apply(params.Overrides{Preset: spec.Preset, FileSets: spec.FileSets, Bugs: spec.Bugs, Sets: spec.Sets}); err != nil {
		return nil, err
	}
	cfg, err := v.Settle()
	if err != nil {
		return nil, err
	}
	pc := cfg.ProducerConfig()
	pc.IdempotenceExplicit = v.Explicit("enable.idempotence")
	// As Kafka's KafkaProducer.configureDeliveryTimeout: an explicit
	// delivery.timeout.ms below linger.ms + request.timeout.ms is refused;
	// a default one is raised, with a note.
	pc.DeliveryTimeoutExplicit = v.Explicit("delivery.timeout.ms")
	var preNotes []string
	if pc.EnableIdempotence && pc.IdempotenceExplicit && pc.Acks != -1 && !v.Explicit("acks") {
		// The scenario's own acks (acks1) yields to an explicit
		// enable.idempotence=true, as an unset acks does in Kafka 3.0+
		// (ProducerConfig.postProcessAndValidateIdempotenceConfigs:
		// idempotence needs acks=all, and acks left unset is all).
		preNotes = append(preNotes, "acks="+strconv.Itoa(int(pc.Acks))+" raised to all: idempotence needs acks=all")
		pc.Acks = -1
	}
	if !pc.EnableIdempotence && pc.TransactionalID != "" && !v.Explicit("transactional.id") {
		// The scenario's own transactional.id cannot stand without
		// idempotence (Kafka refuses it); a scenario run with
		// -idempotence=false drops it, and says so.
		preNotes = append(preNotes, "transactional.id="+pc.TransactionalID+" dropped: it needs idempotence")
		pc.TransactionalID = ""
		pc.TransactionRecords = 0
	}
	if pc.TransactionalID != "" && pc.TransactionRecords == 0 && !cfg.Producer.WhatIfFenceOnly {
		// X36: KafkaProducer.send -> TransactionManager.maybeAddPartition
		// throws outside a transaction.
		return nil, fmt.Errorf("transactional.id=%s needs transaction.records > 0: Kafka's send() outside a transaction throws IllegalStateException (\"Cannot add partition ... to transaction while in state  READY\", TransactionManager.maybeAddPartition); set transaction.records, or producer.whatif.fence_only=true for that what-if", pc.TransactionalID)
	}
	if cfg.App.Mode == params.AppExactlyOnce && (pc.TransactionalID == "" || pc.TransactionRecords == 0) {
		if !pc.EnableIdempotence && !v.Explicit("app.mode") {
			preNotes = append(preNotes, "app.mode=exactly-once needs transactions: without idempotence the application runs at-least-once")
			cfg.App.Mode = params.AppAtLeastOnce
		} else {
			return nil, fmt.Errorf("app.mode=exactly-once needs transactions: set transactional.id and transaction.records > 0 (with idempotence on)")
		}
	}
	eff, notes, err := pc.Resolve()
	if err != nil {
		return nil, err
	}
	notes = append(preNotes, notes...)
	notes = append(notes, v.DesignNotes()...)
	if _, err := netConfig(v); err != nil {
		return nil, err
	}
	s0 := spec
	s0.Seed = 0
	tail, ok := strings.CutPrefix(s0.reproduce(), reproduceHead+"0")
	if !ok {
		panic("scenarios: a reproduce command that does not start with " + reproduceHead)
	}
	return &Resolved{Values: v, Config: cfg, Producer: eff, Notes: notes, params: v.List(), versions: cfg.Versions.String(), reproduceTail: tail}, nil
}

// Run runs one simulation. The error is a configuration error; invariant
// violations are reported in the result.
func Run(spec Spec) (*Result, error) {
	var r Runner
	return r.Run(spec)
}

// run runs the World newWorld built for spec (resolved as res) to its
// end and returns its result.
func (w *World) run(spec Spec, res *Resolved) (*Result, error) {
	sc := spec.Scenario
	pcfg, notes := res.Producer, res.Notes
	if err := w.initFaults(spec.PlanText, spec.PlanSource); err != nil {
		return nil, err
	}
	w.initExplain(spec)
	w.probe.p = spec.Probe
	if spec.HashCache != nil {
		w.probe.cache = spec.HashCache.c
	}
	if spec.Trace != nil {
		w.trace.Tee(spec.Trace)
	}
	if spec.KeepTrace {
		w.trace.Keep()
	}
	w.emit(model.Obs{Kind: model.ObsRunStart, Node: -1, Peer: -1,
		Text: "run scenario=" + sc.Name + " seed=" + strconv.FormatUint(spec.Seed, 10) + " idempotence=" + strconv.FormatBool(pcfg.EnableIdempotence) +
			" " + res.versions})
	maxEv := spec.MaxEvents
	if maxEv == 0 {
		maxEv = 50_000_000
	}
	// Two phases: faults until the plan's end, then a healed world that
	// must converge. A run that drained before the end with no process
	// paused or crashed never needs the second phase.
	horizon := w.horizon()
	// Nothing is scheduled past the horizon (it could never run); a run
	// that drains with such events dropped stopped at the horizon.
	w.limit = horizon
	w.maxState = spec.MaxState
	if w.maxState == 0 {
		w.maxState = DefaultMaxState
	}
	runTo := func(until sim.Time) sim.StopReason {
		s := w.loop.Run(sim.Limits{Until: until, MaxEvents: maxEv}, w)
		if s == sim.StopDrained && w.beyond > 0 {
			s = sim.StopTimeLimit
		}
		return s
	}
	var stop sim.StopReason
	if w.planEnd < horizon {
		stop = runTo(w.planEnd)
		if stop == sim.StopTimeLimit || stop == sim.StopDrained && w.faulty() {
			w.endFaults(w.planEnd)
			stop = runTo(horizon)
		}
	} else {
		stop = runTo(horizon)
	}
	stopText := stop.String()
	if w.overState {
		stopText = "state-limit"
	} else if !w.settleRepl(maxEv) && stop != sim.StopEventLimit { // world_repl.go
		stopText = sim.StopEventLimit.String()
	}
	end := w.loop.Now()
	if w.ended && end < w.planEnd {
		end = w.planEnd
	}
	pending, abandoned := w.pending()
	w.finalLogs(end) // world_repl.go
	w.emit(model.Obs{Kind: model.ObsRunEnd, At: end, Node: -1, Peer: -1, Text: stopText, N: pending, Abandoned: abandoned, Until: w.planEnd})

	counts, vs := w.chk.Finish()
	if runEndHook != nil {
		runEndHook() // a benchmark's: the whole World is still live
	}
	st := w.stats
	// A recycled result's memory (Runner.Recycle), or new.
	r, lat, bugs := w.resultMem, []time.Duration(nil), []string{}
	w.resultMem = nil
	if r != nil {
		lat = r.Latencies[:0]
		if r.Bugs != nil {
			bugs = r.Bugs[:0]
		}
	} else {
		r = new(Result)
	}
	if len(st.latencies) > 0 {
		lat = append(lat, st.latencies...)
	} else {
		lat = nil
	}
	*r = Result{
		Scenario: sc.Name, Seed: spec.Seed, Idempotence: pcfg.EnableIdempotence,
		TraceHash: w.trace.HashString(), Events: w.loop.Events(), SimTimeNs: int64(end), Stop: stopText,
		Params: res.params, ConfigNotes: notes, Versions: res.versions,
		Counts:    counts,
		Abandoned: st.abandoned, Fenced: st.fenced, ZombieWrite: st.zombieWrites, ZombieAttempts: st.zombieAttempts, ZombieRejected: st.zombieRejected, Errors: st.errors, Net: st.net,
		Latencies: lat, Trace: w.trace.Lines(), Plan: w.planText(), Violations: vs,
	}
	if r.ConfigNotes == nil {
		r.ConfigNotes = []string{}
	}
	for _, in := range w.instances {
		r.ClientEpochBumps += int64(in.prod.EpochBumps())
	}
	r.CoordinatorEpochBumps = w.bumps.n
	r.Violations, r.ViolationsCut, r.CutBy = check.SplitCut(r.Violations)
	if w.realized != nil {
		rp := w.realizedPlan()
		r.Realized = rp.String()
	}
	if len(w.readers) > 0 {
		e := &RunEnd{At: end, PlanEnd: w.planEnd, Violations: r.Violations}
		for _, rd := range w.readers {
			rd.End(e)
		}
	}
	// The command is spec.reproduce(), made from the resolution's tail.
	r.Bugs, r.Reproduce = append(bugs, spec.Bugs...), reproduceHead+strconv.FormatUint(spec.Seed, 10)+res.reproduceTail
	return r, nil
}

// runEndHook, when set (by a benchmark, perf_bench_test.go), is called at
// the end of every run, after the checkers' verdicts, while the run's
// World, its logs and its checkers are all still live.
var runEndHook func()

// DefaultMaxState is the default [Spec.MaxState]: a few hundred MB of run
// state at the few hundred bytes each unit takes. Healthy runs hold tens
// of units (a 100,000-record ackloss run at most 12); only a run whose
// state grows without bound comes near it.
const DefaultMaxState = 1_000_000

// horizon is the latest time a run may reach: the later of the fault
// plan's end and the last send plus the delivery timeout, then the
// delivery timeout again and a margin (the convergence deadline,
// LIVE-PROD). A healthy run drains long before.
func (w *World) horizon() sim.Time {
	var last time.Duration
	for _, a := range w.apps {
		last = max(last, time.Duration(a.records)*a.interval)
	}
	h := max(w.planEnd.Duration(), last+w.pcfg.DeliveryTimeout) + w.pcfg.DeliveryTimeout + 2*w.pcfg.RequestTimeout + time.Minute
	if h <= 0 || h > time.Duration(math.MaxInt64/4) {
		h = time.Duration(math.MaxInt64 / 4)
	}
	return sim.Time(h)
}

// ReproduceCommand returns the one command that reproduces a run of a
// catalogue scenario with a scenario file's values, -bug IDs and -set
// values ([OverrideFlags]).
func ReproduceCommand(scenario string, seed uint64, file []params.KV, bugs []string, sets []params.KV) string {
	return reproduceHead + strconv.FormatUint(seed, 10) + " -scenario " + scenario + OverrideFlags(file, bugs, sets)
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
		cmd = reproduceHead + strconv.FormatUint(seed, 10) + " -scenario-file " + shellQuote(scenarioFile) + OverrideFlags(nil, bugs, sets)
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
	w, err := newWorld(nil, spec.Scenario, res.Values, spec.Seed, res.Producer, res.Notes)
	if err != nil {
		return "", err
	}
	if err := w.initFaults(spec.PlanText, spec.PlanSource); err != nil {
		return "", err
	}
	return w.plan.String(), nil
}

// PlanSource is where a replayed fault plan comes from, for its errors
// and the reproduce command. The zero value is a plan given directly (by a
// test, or a -shrink candidate): errors start with "fault plan:".
type PlanSource struct {
	// File is the file the plan was read from: a -plan-file, or with
	// Embedded the scenario file whose "plan" key holds it.
	File string
	// Embedded reports that the plan is the "plan" key of the scenario
	// file File; errors then name the file's lines.
	Embedded bool
	// Line is, for an Embedded plan, the file line of the plan's first
	// line.
	Line int
}

// PlanFile returns the -plan-file the plan was read from, or "".
func (s PlanSource) PlanFile() string {
	if s.Embedded {
		return ""
	}
	return s.File
}

// Invariants returns the names of the invariants every run judges, in
// report order.
func Invariants() []string { return check.Invariants() }

// planText is w.plan.String(), made in a buffer the World keeps: one
// allocation, the string's.
func (w *World) planText() string {
	w.textBuf = w.plan.AppendText(w.textBuf[:0])
	return string(w.textBuf)
}
