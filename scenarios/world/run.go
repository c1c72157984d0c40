package world

import (
	"strconv"
	"time"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/sim"
)

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
	// CommitsFencedByGeneration and OffsetFetchUnstable are a group
	// application's tally.Group (world_group.go); OffsetFetchStallMs its
	// longest stall on UNSTABLE_OFFSET_COMMIT, in ms (tally.OffsetStall).
	CommitsFencedByGeneration int64 `json:"commits_fenced_by_generation,omitempty"`
	OffsetFetchUnstable       int64 `json:"offset_fetch_unstable,omitempty"`
	OffsetFetchStallMs        int64 `json:"offset_fetch_stall_ms,omitempty"`
	// ClientEpochBumps counts the epoch bumps producers made or asked
	// for; CoordinatorEpochBumps the bumps coordinators handed out in
	// InitProducerId and EndTxn answers (internal/tally), such as the one that fences
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
// starts ([params.Resolved]).
type Resolved = params.Resolved

// run runs the World newWorld built for s to its end and returns its
// result; the caller fills in Result.Reproduce.
func (w *World) run(s *Setup) (*Result, error) {
	res, pcfg := s.Resolved, s.Resolved.Producer
	if err := w.initFaults(s.PlanText, s.PlanSource); err != nil {
		return nil, err
	}
	w.initExplain(s)
	w.probe.p = s.Probe
	if s.HashCache != nil {
		w.probe.cache = s.HashCache.c
	}
	if s.Trace != nil {
		w.trace.Tee(s.Trace)
	}
	if s.KeepTrace {
		w.trace.Keep()
	}
	w.emit(model.Obs{Kind: model.ObsRunStart, Node: -1, Peer: -1,
		Text: "run scenario=" + s.Name + " seed=" + strconv.FormatUint(s.Seed, 10) + " idempotence=" + strconv.FormatBool(pcfg.EnableIdempotence) +
			" " + res.Versions})
	maxEv := s.MaxEvents
	if maxEv == 0 {
		maxEv = DefaultMaxEvents
	}
	// Two phases: faults until the plan's end, then a healed world that
	// must converge. A run that drained before the end with no process
	// paused or crashed never needs the second phase.
	horizon := sim.Time(w.timing().Horizon(w.planEnd.Duration())) // the latest time the run may reach
	// Nothing is scheduled past the horizon (it could never run); a run
	// that drains with such events dropped stopped at the horizon.
	w.limit = horizon
	w.maxState = s.MaxState
	if w.maxState == 0 {
		w.maxState = DefaultMaxState
	}
	return w.runRest(s, maxEv, false)
}

// runRest runs the world on to its end, resumed after a saved event or not.
func (w *World) runRest(s *Setup, maxEv int64, resumed bool) (*Result, error) {
	res, horizon, pcfg, notes := s.Resolved, w.limit, s.Resolved.Producer, s.Resolved.Notes
	runTo := func(until sim.Time) sim.StopReason {
		s := w.loop.Run(sim.Limits{Until: until, MaxEvents: maxEv}, w)
		if s == sim.StopDrained && w.beyond > 0 {
			s = sim.StopTimeLimit
		}
		return s
	}
	var stop sim.StopReason
	if resumed && w.loop.Stopped() {
		stop = sim.StopRequested
	} else if w.planEnd < horizon {
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
	} else if !w.repl.settle(w, maxEv) && stop != sim.StopEventLimit { // world_repl.go
		stopText = sim.StopEventLimit.String()
	}
	end := w.loop.Now()
	if w.ended && end < w.planEnd {
		end = w.planEnd
	}
	pending, abandoned := w.pending()
	w.repl.finalLogs(w, end) // world_repl.go
	w.loop.Trim(finalKeep)   // a backlog's queue is not kept past the run
	for _, in := range w.instances {
		in.prod.TrimLists() // nor a backlog's batch lists
	}
	for i := range w.nodes {
		if h := w.nodes[i].holder; h != nil {
			h.ClearSpare() // nor stale effects pointing into the run
		}
	}
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
	if len(st.Latencies) > 0 {
		lat = append(lat, st.Latencies...)
	} else {
		lat = nil
	}
	*r = Result{
		Scenario: s.Name, Seed: s.Seed, Idempotence: pcfg.EnableIdempotence,
		TraceHash: w.trace.HashString(), Events: w.loop.Events(), SimTimeNs: int64(end), Stop: stopText,
		Params: res.Params, ConfigNotes: notes, Versions: res.Versions,
		Counts:    counts,
		Abandoned: st.Abandoned, Fenced: st.Fenced, ZombieWrite: st.ZombieWrites, ZombieAttempts: st.ZombieAttempts, ZombieRejected: st.ZombieRejected, Errors: st.Errors, Net: st.Net,
		CommitsFencedByGeneration: st.Group.Fenced, OffsetFetchUnstable: st.Group.Unstable, OffsetFetchStallMs: st.Group.Stall.MaxMillis(),
		Latencies: lat, Trace: w.trace.Lines(), Plan: w.planText(), Violations: vs,
	}
	if r.ConfigNotes == nil {
		r.ConfigNotes = []string{}
	}
	for _, in := range w.instances {
		r.ClientEpochBumps += int64(in.prod.EpochBumps())
	}
	r.CoordinatorEpochBumps = w.bumps.N
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
	r.Bugs = append(bugs, s.Bugs...)
	return r, nil
}

// runEndHook, when set ([SetRunEndHook]), is called at the end of every
// run, after the checkers' verdicts, while the run's World, its logs and
// its checkers are all still live.
var runEndHook func()

// SetRunEndHook sets f to be called at the end of every run, after the
// checkers' verdicts, while the run's World, its logs and its checkers
// are all still live: a benchmark measures the heap a run holds there
// (scenarios/perf_bench_test.go). nil removes it. It is for benchmarks
// only: it changes nothing in a run, and it must not be set while runs
// are under way on other goroutines.
func SetRunEndHook(f func()) { runEndHook = f }

// DefaultMaxEvents is the default [Setup.MaxEvents] (-max-events).
const DefaultMaxEvents = 50_000_000

// DefaultMaxState is the default [Spec.MaxState]: a few hundred MB of run
// state at the few hundred bytes each unit takes. A run's records and log
// entries count too, [HeldPerUnit] to a unit: a 1,000,000-record run
// (the most an application sends) holds some 250,000 to 600,000 units,
// the rest of a healthy run's state tens of units; only a run whose
// state grows without bound, or a sweep configuration of several
// million records, comes near it.
const DefaultMaxState = 1_000_000

// HeldPerUnit is how many records sent and log entries appended count
// as one unit of a run's state ([World.state]): what the run keeps of
// each in the producer's, the brokers' and the checkers' tables to its
// end, some 100 bytes (docs/performance.md, "Memory per record"), a
// quarter of the few hundred bytes a unit stands for.
const HeldPerUnit = 4

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

// planText is w.plan.String(), made in a buffer the World keeps: one
// allocation, the string's.
func (w *World) planText() string {
	w.textBuf = w.plan.AppendText(w.textBuf[:0])
	return string(w.textBuf)
}
