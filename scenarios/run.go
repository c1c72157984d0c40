package scenarios

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// Spec is everything one run depends on. Two runs of equal specs produce
// the same trace, byte for byte.
type Spec struct {
	Scenario *Scenario
	Seed     uint64
	// Sets are the user's key=value overrides, applied in order.
	Sets []KV
	// Trace, if not nil, receives the timeline as it is written.
	Trace io.Writer
	// KeepTrace keeps the timeline in Result.Trace.
	KeepTrace bool
	// MaxEvents bounds the run; 0 means 50,000,000.
	MaxEvents int64
	// ScenarioFile is the path of the scenario file the scenario came
	// from, if any; the reproduce command then names the file.
	ScenarioFile string
	// PlanText, if not empty (or if PlanFile is set), is the fault plan to
	// replay (docs/plans.md) instead of the one the seed generates.
	PlanText string
	// PlanFile names where PlanText came from, for errors and the
	// reproduce command.
	PlanFile string
	// PlanLine is, for a plan embedded in ScenarioFile, the file line of
	// the plan's first line.
	PlanLine int
	// Record keeps the run's event log in Result.Log (explainlog.go).
	Record bool
}

// Result is a run's report: every field is deterministic in the Spec.
type Result struct {
	Scenario    string   `json:"scenario"`
	Seed        uint64   `json:"seed"`
	Idempotence bool     `json:"idempotence"`
	TraceHash   string   `json:"trace_hash"`
	Events      int64    `json:"events"`
	SimTimeNs   int64    `json:"sim_time_ns"`
	Stop        string   `json:"stop"`
	Params      []KV     `json:"params"`
	ConfigNotes []string `json:"config_notes"`
	// Counts are the checker's tallies: sent, acked, failed, pending,
	// appended, duplicates, reordered, lost_acked, aborted.
	check.Counts
	Abandoned   int64 `json:"abandoned"`
	Fenced      int64 `json:"fenced"`
	ZombieWrite int64 `json:"zombie_writes"`
	// ZombieAttempts counts produce batches a superseded instance got to
	// the broker; ZombieRejected those rejected for a stale epoch.
	ZombieAttempts int64             `json:"zombie_attempts"`
	ZombieRejected int64             `json:"zombie_rejected"`
	EpochBumps     int64             `json:"epoch_bumps"`
	Errors         map[string]int64  `json:"errors"`
	Net            NetStats          `json:"net"`
	Violations     []check.Violation `json:"violations"`
	Reproduce      string            `json:"reproduce"`

	// Latencies are the send-to-ack times of acknowledged records, in
	// acknowledgement order (for sweeps and plots; not in the JSON).
	Latencies []time.Duration `json:"-"`
	// Trace is the timeline, when Spec.KeepTrace was set.
	Trace []string `json:"-"`
	// Plan is the run's fault plan, as text (docs/plans.md).
	Plan string `json:"-"`
	// Realized is Plan plus the losses the random sources drew, as plan
	// text (realize.go); Log is the event log when Spec.Record was set.
	Realized string `json:"-"`
	Log      *Log   `json:"-"`
}

// Failed reports whether any invariant was violated.
func (r *Result) HasViolations() bool { return len(r.Violations) > 0 }

// Resolve applies the spec's overrides to the scenario's defaults and
// checks the producer configuration, returning the values, the effective
// producer configuration and Kafka's configuration notes.
func Resolve(sc *Scenario, sets []KV) (*Values, model.ProducerConfig, []string, error) {
	v := sc.Values()
	for _, kv := range sets {
		if err := v.Set(kv.Key, kv.Value); err != nil {
			return nil, model.ProducerConfig{}, nil, err
		}
	}
	pc := model.DefaultProducerConfig()
	pc.EnableIdempotence = v.Bool("enable.idempotence")
	pc.IdempotenceExplicit = v.Explicit("enable.idempotence")
	acks := v.Get("acks")
	if acks == "all" {
		acks = "-1"
	}
	a, _ := strconv.Atoi(acks)
	pc.Acks = int8(a)
	pc.Retries = int32(v.Int("retries"))
	pc.MaxInFlight = int(v.Int("max.in.flight.requests.per.connection"))
	pc.AllowInFlightAboveFive = v.Bool("max.in.flight.above.five")
	pc.DeliveryTimeout = v.Millis("delivery.timeout.ms")
	pc.RequestTimeout = v.Millis("request.timeout.ms")
	pc.RetryBackoff = v.Millis("retry.backoff.ms")
	pc.RetryBackoffMax = v.Millis("retry.backoff.max.ms")
	pc.ReconnectBackoff = v.Millis("reconnect.backoff.ms")
	pc.Linger = v.Millis("linger.ms")
	pc.BatchSize = int(v.Int("batch.size"))
	pc.TransactionalID = v.Get("transactional.id")
	pc.TransactionRecords = int(v.Int("transaction.records"))
	pc.TransactionTimeout = v.Millis("transaction.timeout.ms")
	pc.Seq = model.SeqSpace{Bits: uint8(v.Int("sequence.bits"))}
	if v.Get("client.policy") == "librdkafka" {
		pc.Policy = model.PolicyLibrdkafka
	}
	pc.BugResetSeqOnMetadataFlap = v.Bool("producer.bug.metaflap_reset")
	pc.BugReuseExpiredSeq = v.Bool("producer.bug.reuse_expired_seq")
	pc.BugBumpOnAnyOOSN = v.Bool("producer.bug.bump_on_any_oosn")
	var preNotes []string
	if !pc.EnableIdempotence && pc.TransactionalID != "" && !v.Explicit("transactional.id") {
		// The scenario's own transactional.id cannot stand without
		// idempotence (Kafka refuses it); a scenario run with
		// -idempotence=false drops it, and says so.
		preNotes = append(preNotes, "transactional.id="+pc.TransactionalID+" dropped: it needs idempotence")
		pc.TransactionalID = ""
		pc.TransactionRecords = 0
	}
	eff, notes, err := pc.Resolve()
	if err != nil {
		return nil, model.ProducerConfig{}, nil, err
	}
	notes = append(preNotes, notes...)
	if _, err := netConfig(v); err != nil {
		return nil, model.ProducerConfig{}, nil, err
	}
	return v, eff, notes, nil
}

// Run runs one simulation. The error is a configuration error; invariant
// violations are reported in the result.
func Run(spec Spec) (*Result, error) {
	sc := spec.Scenario
	vals, pcfg, notes, err := Resolve(sc, spec.Sets)
	if err != nil {
		return nil, err
	}
	w, err := newWorld(sc, vals, spec.Seed, pcfg, notes)
	if err != nil {
		return nil, err
	}
	if err := w.initFaults(spec.PlanText, planSource(spec)); err != nil {
		return nil, err
	}
	w.initExplain(spec)
	if spec.Trace != nil {
		w.trace.Tee(spec.Trace)
	}
	if spec.KeepTrace {
		w.trace.Keep()
	}
	w.emit(model.Obs{Kind: model.ObsRunStart, Node: -1, Peer: -1,
		Text: "run scenario=" + sc.Name + " seed=" + strconv.FormatUint(spec.Seed, 10) + " idempotence=" + strconv.FormatBool(pcfg.EnableIdempotence)})
	maxEv := spec.MaxEvents
	if maxEv == 0 {
		maxEv = 50_000_000
	}
	// Two phases: faults until the plan's end, then a healed world that
	// must converge. A run that drained before the end with no process
	// paused or crashed never needs the second phase.
	horizon := w.horizon()
	var stop sim.StopReason
	if w.planEnd < horizon {
		stop = w.loop.Run(sim.Limits{Until: w.planEnd, MaxEvents: maxEv}, w)
		if stop == sim.StopTimeLimit || stop == sim.StopDrained && w.faulty() {
			w.endFaults(w.planEnd)
			stop = w.loop.Run(sim.Limits{Until: horizon, MaxEvents: maxEv}, w)
		}
	} else {
		stop = w.loop.Run(sim.Limits{Until: horizon, MaxEvents: maxEv}, w)
	}
	end := w.loop.Now()
	if w.ended && end < w.planEnd {
		end = w.planEnd
	}
	w.emit(model.Obs{Kind: model.ObsRunEnd, At: end, Node: -1, Peer: -1, Text: stop.String(), N: w.pending(), Until: w.planEnd})

	counts, vs := w.chk.Finish()
	st := w.stats
	r := &Result{
		Scenario: sc.Name, Seed: spec.Seed, Idempotence: pcfg.EnableIdempotence,
		TraceHash: w.trace.HashString(), Events: w.loop.Events(), SimTimeNs: int64(end), Stop: stop.String(),
		Params: vals.List(), ConfigNotes: notes,
		Counts:    counts,
		Abandoned: st.abandoned, Fenced: st.fenced, ZombieWrite: st.zombieWrites, ZombieAttempts: st.zombieAttempts, ZombieRejected: st.zombieRejected, Errors: st.errors, Net: st.net,
		Latencies: st.latencies, Trace: w.trace.Lines(), Plan: w.plan.String(), Violations: vs,
	}
	if r.ConfigNotes == nil {
		r.ConfigNotes = []string{}
	}
	for _, in := range w.instances {
		r.EpochBumps += int64(in.prod.EpochBumps())
	}
	rp := w.realizedPlan()
	r.Realized = rp.String()
	if w.xlog != nil {
		r.Log = w.xlog.finish(end, w.planEnd, r.Violations)
	}
	r.Reproduce = ReproduceCommand(sc.Name, spec.Seed, spec.Sets)
	if spec.ScenarioFile != "" {
		r.Reproduce = strings.Replace(r.Reproduce, "-scenario "+sc.Name, "-scenario-file "+shellQuote(spec.ScenarioFile), 1)
	}
	if spec.PlanFile != "" {
		r.Reproduce += " -plan-file " + shellQuote(spec.PlanFile)
	}
	return r, nil
}

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

// ReproduceCommand returns the one command that reproduces a run.
func ReproduceCommand(scenario string, seed uint64, sets []KV) string {
	var b strings.Builder
	fmt.Fprintf(&b, "go run ./cmd/simulate -seed %d -scenario %s", seed, scenario)
	sets = slices.Clone(sets)
	for _, kv := range sets {
		if kv.Key == "enable.idempotence" {
			fmt.Fprintf(&b, " -idempotence=%s", kv.Value)
			continue
		}
		fmt.Fprintf(&b, " -set %s=%s", kv.Key, shellQuote(kv.Value))
	}
	return b.String()
}

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
	vals, pcfg, notes, err := Resolve(spec.Scenario, spec.Sets)
	if err != nil {
		return "", err
	}
	w, err := newWorld(spec.Scenario, vals, spec.Seed, pcfg, notes)
	if err != nil {
		return "", err
	}
	if err := w.initFaults(spec.PlanText, planSource(spec)); err != nil {
		return "", err
	}
	return w.plan.String(), nil
}

// scenarioFilePrefix marks a plan source that is embedded in a scenario
// file: the prefix, the file name, a NUL and the file line of the plan.
const scenarioFilePrefix = "\x00scenario-file:"

// planSource names where a spec's plan text comes from, for errors.
func planSource(spec Spec) string {
	if spec.PlanFile == "" && spec.ScenarioFile != "" && spec.PlanText != "" {
		return scenarioFilePrefix + spec.ScenarioFile + "\x00" + strconv.Itoa(spec.PlanLine)
	}
	return spec.PlanFile
}

// Invariants returns the names of the invariants every run judges, in
// report order.
func Invariants() []string { return check.Invariants() }
