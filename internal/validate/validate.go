package validate

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// Support says whether and how a catalogue scenario can be validated.
type Support struct {
	// Off and On tell whether idempotence off and on can run against
	// franz-go.
	Off, On bool
	// Scale is the default time scale of the real side (-time-scale).
	Scale float64
	// Instances is the number of producer instances the scenario starts.
	Instances int
	// Note says what limits the scenario, for -list and the report.
	Note string
	// Sets are settings validate adds to both sides unless the user set
	// them (the report lists them with the overrides).
	Sets []params.KV
	// Starts returns the instances' start times, when the scenario
	// starts more than one.
	Starts func(*params.Config) []time.Duration
	// Deviations names the kfake deviations (docs/validate.md) a run of
	// the scenario can reach, and the counters they affect; those
	// counters are reported but left out of the overall verdict.
	Deviations map[string]string
}

// supported are the scenarios validate runs (docs/validate.md).
var supported = map[string]Support{
	"ackloss": {Off: true, On: true, Scale: 0.05, Instances: 1},
	"reorder": {Off: true, On: true, Scale: 1, Instances: 1,
		Note: "broker.transient_error is the proxy answering NOT_ENOUGH_REPLICAS in the broker's place"},
	"inflight6": {Off: true, Scale: 0.05, Instances: 1,
		Note: "idempotence off only: franz-go refuses MaxProduceRequestsInflightPerBroker with idempotence and keeps 5 in flight"},
	"restart": {Off: true, On: true, Scale: 1, Instances: 1,
		Note: "real time scale 1: the crash races the acknowledgement, so latencies must be comparable"},
	"zombie": {Off: true, On: true, Scale: 0.1, Instances: 2,
		Sets:       []params.KV{{Key: "transaction.records", Value: "10"}, {Key: "app.mode", Value: "at-least-once"}},
		Note:       "transactional and at least once (the real application commits no consumer offsets: app.mode=exactly-once is not validated yet); the pause of p1 is a proxy hold of its connections: its client's timers keep running, a paused process's do not",
		Deviations: map[string]string{"errors[CONCURRENT_TRANSACTIONS]": "kfake aborts an ongoing transaction inside InitProducerId, so the new instance never gets CONCURRENT_TRANSACTIONS (docs/validate.md)"},
		Starts: func(c *params.Config) []time.Duration {
			// scenarios' zombie build: v2 starts 150 ms after the
			// pause's nominal start plus takeover.after.ms.
			return []time.Duration{0, c.Extra.PauseAt + c.Extra.TakeoverAfter + 150*time.Millisecond}
		}},
}

// Supports returns how a scenario can be validated, and false when it
// cannot.
func Supports(name string) (Support, bool) {
	s, ok := supported[name]
	return s, ok
}

// Unsupported explains, for the scenarios validate does not run, why.
var Unsupported = map[string]string{
	"txntimeout": "needs a producer process paused past transaction.timeout.ms; a proxy hold is not a process pause",
	"expiry":     "producer-state expiry needs broker configuration kfake does not expose per run",
	"statelost":  "needs a broker crash and restart; kfake restarts only with persistence, and keeps the whole 5-batch cache across a restart (docs/validate.md)",
	"wrap":       "sequence.bits narrower than 31 has no real counterpart; kfake wraps sequences modulo 2^31-1",
	"epochx":     "epoch.bits narrower than 16 has no real counterpart",
	"seqreuse":   "metadata flaps and client defects (-bug) have no real counterpart in franz-go 1.22",
	"emptypart":  "partition.not_ready.batches has no proxy counterpart yet",
	"crossbump":  "its epoch bump for one partition while the other writes reaches kfake's one epoch per producer and its epoch raised by a rejected batch (docs/validate.md)",
}

// Config is one validate invocation.
type Config struct {
	Scenario *scenarios.Scenario
	// FileSets, Bugs and Sets are the scenario file's values, -bug IDs
	// and -set values, as for a sweep.
	FileSets []params.KV
	Bugs     []string
	Sets     []params.KV
	// Modes are the idempotence modes to validate (false, true); empty
	// means every mode the scenario supports.
	Modes []bool
	// Runs are the real runs per mode; SimRuns the simulated ones.
	Runs, SimRuns int
	// Base is the first seed.
	Base uint64
	// Margin is the equivalence margin.
	Margin Margin
	// Scale is the real side's time scale (0: the scenario's default).
	Scale float64
	// Bootstrap is a user's cluster, or "" for kfake.
	Bootstrap string
	// PlanText, if set, replaces every run's fault plan on both sides.
	PlanText string
	// Parallel is the simulated side's parallelism.
	Parallel int
	// Progress, if set, is told of each finished real run.
	Progress func(mode bool, done, total int)
	// Client is the real client: ClientFranzGo (default) or
	// ClientLibrdkafka (builds with -tags librdkafka only).
	Client string
}

// Overrides are the settings validate adds to both sides unless the user
// set them: the client modelled is the real one (client.policy=franz-go
// or librdkafka), and a lost message breaks its connection with a notice
// (the proxy closes it), since franz-go's shortest request timeout is
// 200 ms and waiting it out at every loss would make a run of 2,000
// records take minutes.
func (c *Config) overrides() []params.KV {
	var out []params.KV
	all := []params.KV{{Key: "client.policy", Value: c.client()}, {Key: "net.disconnect_notice", Value: "1"}}
	if sup, ok := Supports(c.Scenario.Name); ok {
		all = append(all, sup.Sets...)
	}
	for _, kv := range all {
		if !explicit(c.Sets, kv.Key) && !explicit(c.FileSets, kv.Key) {
			out = append(out, kv)
		}
	}
	return out
}

// client is the real client's name.
func (c *Config) client() string {
	if c.Client == "" {
		return ClientFranzGo
	}
	return c.Client
}

// Run is one run's counters on one side.
type Run struct {
	Side string `json:"side"` // "sim" or "real"
	Mode string `json:"mode"` // "off" or "on"
	Run  int    `json:"run"`
	Seed uint64 `json:"seed"`
	Counts
	TraceHash string `json:"trace_hash"`
	Reproduce string `json:"reproduce"`
	WallMs    int64  `json:"wall_ms"`
}

// ModeResult is one mode's comparison.
type ModeResult struct {
	Mode        string       `json:"mode"`
	SimRuns     int          `json:"sim_runs"`
	RealRuns    int          `json:"real_runs"`
	Comparisons []Comparison `json:"comparisons"`
	Verdict     string       `json:"verdict"`
	Notes       []string     `json:"notes"`
	RealWallMs  int64        `json:"real_wall_ms"`
}

// Result is a validate invocation's report.
type Result struct {
	Format    int          `json:"format"`
	Scenario  string       `json:"scenario"`
	Sets      []params.KV  `json:"sets"`
	Overrides []params.KV  `json:"overrides"`
	BaseSeed  uint64       `json:"base_seed"`
	Margin    string       `json:"margin"`
	TimeScale float64      `json:"time_scale"`
	Client    string       `json:"client"`
	Broker    string       `json:"broker"`
	Modes     []ModeResult `json:"modes"`
	Statement string       `json:"statement"`
	Runs      []Run        `json:"-"`
}

// Statement is said in every report: what kind of comparison this is.
const Statement = "The real side runs in real time: its results are statistical, not byte-identical, and its runs have no trace hash or reproduce command. " +
	"Each rate is Σx/Σy over runs with a 95% interval (delta method, clustered by run). The verdict is an equivalence test (two one-sided tests at α = 0.05): " +
	"agree when the 90% interval of real − sim lies within ±margin; disagree when it is not shown equivalent and the difference is significant (p < 0.05); " +
	"otherwise inconclusive. Failing to reject a difference is not agreement."

// modeName is "off" or "on".
func modeName(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// explicit reports whether key is among sets.
func explicit(sets []params.KV, key string) bool {
	return slices.ContainsFunc(sets, func(kv params.KV) bool { return kv.Key == key })
}

// sets returns the -set level of one mode: the overrides the user did
// not set, the user's values, then enable.idempotence.
func (c *Config) sets(on bool) []params.KV {
	out := c.overrides()
	out = append(out, c.Sets...)
	return append(out, params.KV{Key: "enable.idempotence", Value: strconv.FormatBool(on)})
}

func (c *Config) spec(on bool, seed uint64) scenarios.Spec {
	return scenarios.Spec{Scenario: c.Scenario, Seed: seed, FileSets: c.FileSets, Bugs: c.Bugs, Sets: c.sets(on), PlanText: c.PlanText}
}

// Check checks the configuration before anything runs.
func (c *Config) Check() error {
	sup, ok := Supports(c.Scenario.Name)
	if !ok {
		why := Unsupported[c.Scenario.Name]
		if why == "" {
			why = "not in validate's list"
		}
		return fmt.Errorf("scenario %s does not support validate: %s (see simulate -list)", c.Scenario.Name, why)
	}
	switch c.client() {
	case ClientFranzGo:
	case ClientLibrdkafka:
		if !HasLibrdkafka() {
			return fmt.Errorf("-client librdkafka: this simulate was built without librdkafka (go build -tags librdkafka ./cmd/simulate; needs cgo): %w", ErrUnsupported)
		}
	default:
		return fmt.Errorf("-client %q is not allowed (allowed: franz-go, librdkafka)", c.Client)
	}
	if c.Runs < 1 || c.Runs > 100000 {
		return fmt.Errorf("-runs %d is not allowed (allowed: 1..100000)", c.Runs)
	}
	if c.SimRuns < 1 || c.SimRuns > 10000000 {
		return fmt.Errorf("-sim-runs %d is not allowed (allowed: 1..10000000)", c.SimRuns)
	}
	if !(c.Margin.Value > 0) || c.Margin.Value > 1e6 {
		return fmt.Errorf("-margin must be > 0")
	}
	if c.Scale == 0 {
		c.Scale = sup.Scale
		if c.client() == ClientLibrdkafka && c.Scale < 0.5 {
			// librdkafka's socket.timeout.ms is its request timeout:
			// scaled down to 50 ms it fires spuriously on a loaded
			// machine and adds duplicates of its own (docs/validate.md).
			c.Scale = 0.5
		}
	}
	if len(c.Modes) == 0 {
		// Both modes, as far as the client allows.
		if sup.Off {
			c.Modes = append(c.Modes, false)
		}
		if sup.On {
			c.Modes = append(c.Modes, true)
		}
	}
	if !(c.Scale > 0 && c.Scale <= 10) {
		return fmt.Errorf("-time-scale %v is not allowed (allowed: (0, 10])", c.Scale)
	}
	for _, on := range c.Modes {
		if on && !sup.On || !on && !sup.Off {
			return fmt.Errorf("scenario %s cannot be validated with idempotence %s: %s", c.Scenario.Name, modeName(on), sup.Note)
		}
		res, err := scenarios.Resolve(c.spec(on, c.Base))
		if err != nil {
			return err
		}
		if res.Producer.EnableIdempotence != on {
			return fmt.Errorf("idempotence %s was asked, but the configuration turns it %s (%v)", modeName(on), modeName(res.Producer.EnableIdempotence), res.Notes)
		}
		cfg := res.Config
		if cfg.Net.Mode != 0 {
			return fmt.Errorf("net.mode=datagram has no TCP counterpart: %w", ErrUnsupported)
		}
		if cfg.Net.Duplicate > 0 || cfg.Net.Reorder > 0 {
			return fmt.Errorf("net.duplicate and net.reorder have no TCP counterpart: %w", ErrUnsupported)
		}
		if cfg.Producer.TransactionalID != "" && cfg.Producer.TransactionRecords == 0 {
			return fmt.Errorf("transactional.id without transaction.records: kgo produces with a transactional.id only inside transactions: %w", ErrUnsupported)
		}
		if cfg.App.Mode == params.AppExactlyOnce {
			return fmt.Errorf("app.mode=exactly-once: the real application commits no consumer offsets yet: %w", ErrUnsupported)
		}
		if cfg.Producer.TransactionalID != "" && c.client() == ClientLibrdkafka {
			return fmt.Errorf("transactions with -client librdkafka are not validated yet: %w", ErrUnsupported)
		}
		if len(c.Bugs) > 0 {
			return fmt.Errorf("-bug: historical defects have no real counterpart: %w", ErrUnsupported)
		}
		if cfg.Producer.Acks == 0 {
			return fmt.Errorf("acks=0: no responses to lose or count: %w", ErrUnsupported)
		}
		if cfg.Fault.Count > 0 && cfg.Fault.Kinds&^(faults.GenPause|faults.GenCut|faults.GenCutOneWay|faults.GenDrop) != 0 {
			return fmt.Errorf("fault.count with fault.kinds including crash or drift: server crashes and clock drift have no real counterpart; use fault.kinds=pause,partition,oneway,drop: %w", ErrUnsupported)
		}
	}
	return nil
}

// moduleVersion returns a dependency's version from the build info.
func moduleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return "unknown"
}

// Validate runs the comparison.
func Validate(ctx context.Context, c Config) (*Result, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if c.Parallel < 1 {
		c.Parallel = runtime.NumCPU()
	}
	sup, _ := Supports(c.Scenario.Name)
	res := &Result{Format: 1, Scenario: c.Scenario.Name, Sets: c.Sets, BaseSeed: c.Base, Margin: c.Margin.String(),
		TimeScale: c.Scale, Statement: Statement,
		Client: "franz-go kgo " + moduleVersion("github.com/twmb/franz-go"),
		Broker: "kfake " + moduleVersion("github.com/twmb/franz-go/pkg/kfake") + " (in process, loopback)"}
	if res.Sets == nil {
		res.Sets = []params.KV{}
	}
	if c.Bootstrap != "" {
		res.Broker = "Kafka at " + c.Bootstrap
	}
	res.Overrides = c.overrides()
	if c.client() == ClientLibrdkafka {
		res.Client = "librdkafka " + librdkafkaVersion() + " (confluent-kafka-go " + moduleVersion("github.com/confluentinc/confluent-kafka-go/v2") + ")"
	}
	for _, on := range c.Modes {
		mr, runs, err := c.validateMode(ctx, on, sup)
		res.Runs = append(res.Runs, runs...)
		if err != nil {
			return res, err
		}
		res.Modes = append(res.Modes, mr)
	}
	return res, nil
}

func (c *Config) validateMode(ctx context.Context, on bool, sup Support) (ModeResult, []Run, error) {
	mode := modeName(on)
	mr := ModeResult{Mode: mode}
	sim, err := c.runSim(ctx, on)
	if err != nil {
		return mr, nil, err
	}
	var real []Run
	start := time.Now()
	for i := 0; i < c.Runs; i++ {
		if err := ctx.Err(); err != nil {
			return mr, append(sim, real...), err
		}
		seed := c.Base + uint64(i)
		spec := c.spec(on, seed)
		resolved, err := scenarios.Resolve(spec)
		if err != nil {
			return mr, nil, err
		}
		text, err := scenarios.PlanText(spec)
		if err != nil {
			return mr, nil, err
		}
		plan, err := faults.Parse(text)
		if err != nil {
			return mr, nil, err
		}
		cfg := resolved.Config
		span := time.Duration(cfg.App.Records)*cfg.App.SendInterval + cfg.App.Idle + plan.End
		deadline := time.Duration(float64(span)*c.Scale) + 30*time.Second
		t0 := time.Now()
		var starts []time.Duration
		if sup.Starts != nil {
			starts = sup.Starts(cfg)
		}
		counts, err := RunReal(ctx, RealSpec{Resolved: resolved, Plan: plan, Seed: seed, Scale: c.Scale,
			Bootstrap: c.Bootstrap, Instances: sup.Instances, Deadline: deadline, Client: c.client(), Starts: starts})
		if err != nil {
			return mr, append(sim, real...), fmt.Errorf("real run %d (seed %d, idempotence %s): %w", i+1, seed, mode, err)
		}
		real = append(real, Run{Side: "real", Mode: mode, Run: i + 1, Seed: seed, Counts: counts,
			TraceHash: "none: real time, not deterministic", Reproduce: "none: real time; rerun simulate validate for a new sample",
			WallMs: time.Since(t0).Milliseconds()})
		if c.Progress != nil {
			c.Progress(on, i+1, c.Runs)
		}
	}
	mr.RealWallMs = time.Since(start).Milliseconds()
	mr.SimRuns, mr.RealRuns = len(sim), len(real)
	mr.Comparisons = compareRuns(sim, real, c.Margin, sup)
	mr.Verdict = overall(mr.Comparisons)
	if sup.Note != "" {
		mr.Notes = append(mr.Notes, sup.Note)
	}
	switch {
	case c.client() == ClientLibrdkafka:
		mr.Notes = append(mr.Notes, "client.policy=librdkafka models librdkafka 1.x-2.2; the real client is newer (docs/validate.md)")
	case !on:
		mr.Notes = append(mr.Notes, "franz-go without idempotence resends every batch after a failed first batch in order (docs/validate.md); client.policy=franz-go models it")
	default:
		mr.Notes = append(mr.Notes, "franz-go with idempotence keeps up to 5 requests in flight whatever max.in.flight.requests.per.connection says; client.policy=franz-go models it")
	}
	return mr, append(sim, real...), nil
}

// runSim runs the simulated side: seeds Base .. Base+SimRuns-1.
func (c *Config) runSim(ctx context.Context, on bool) ([]Run, error) {
	runs := make([]Run, c.SimRuns)
	errs := make([]error, c.SimRuns)
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < c.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= c.SimRuns || ctx.Err() != nil {
					return
				}
				seed := c.Base + uint64(i)
				r, err := scenarios.Run(c.spec(on, seed))
				if err != nil {
					errs[i] = err
					continue
				}
				runs[i] = Run{Side: "sim", Mode: modeName(on), Run: i + 1, Seed: seed, TraceHash: r.TraceHash, Reproduce: r.Reproduce,
					Counts: Counts{Sent: r.Sent, Acked: r.Acked, Failed: r.Failed, Pending: r.Pending, Appended: r.Appended,
						Duplicates: r.Duplicates, Reordered: r.Reordered, LostAcked: r.LostAcked, Fenced: r.Fenced, Errors: r.Errors}}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return runs, nil
}

// counter is one compared counter: its numerator and denominator per run.
type counter struct {
	name, per string
	x, y      func(*Counts) int64
}

func sent(c *Counts) int64  { return c.Sent }
func acked(c *Counts) int64 { return c.Acked }

var counters = []counter{
	{"duplicates", "sent", func(c *Counts) int64 { return c.Duplicates }, sent},
	{"reordered", "sent", func(c *Counts) int64 { return c.Reordered }, sent},
	{"lost_acked", "acked", func(c *Counts) int64 { return c.LostAcked }, acked},
	{"fenced", "sent", func(c *Counts) int64 { return c.Fenced }, sent},
	{"failed", "sent", func(c *Counts) int64 { return c.Failed }, sent},
}

// compareRuns compares every counter and every error code seen.
func compareRuns(runs, real []Run, m Margin, sup Support) []Comparison {
	all := append(slices.Clone(runs), real...)
	side := func(r *Run) int {
		if r.Side == "real" {
			return 1
		}
		return 0
	}
	var out []Comparison
	for _, k := range counters {
		var ps [2]pair
		for i := range all {
			ps[side(&all[i])].add(k.x(&all[i].Counts), k.y(&all[i].Counts))
		}
		out = append(out, compare(k.name, k.per, &ps[0], &ps[1], m))
	}
	codes := map[string]bool{}
	for _, r := range all {
		for code := range r.Errors {
			codes[code] = true
		}
	}
	names := make([]string, 0, len(codes))
	for code := range codes {
		names = append(names, code)
	}
	sort.Strings(names)
	for _, code := range names {
		var ps [2]pair
		for i := range all {
			ps[side(&all[i])].add(all[i].Errors[code], all[i].Sent)
		}
		out = append(out, compare("errors["+code+"]", "sent", &ps[0], &ps[1], m))
	}
	for i := range out {
		if why, ok := sup.Deviations[out[i].Counter]; ok {
			out[i].Excluded = why
		}
	}
	return out
}

// overall is the mode's verdict over the counters not excluded: disagree
// if any disagrees, agree if all agree, else inconclusive.
func overall(cs []Comparison) string {
	v := Agree
	for _, c := range cs {
		if c.Excluded != "" {
			continue
		}
		switch c.Verdict {
		case Disagree:
			return Disagree
		case Inconclusive:
			v = Inconclusive
		}
	}
	return v
}

func itoa(n int) string { return strconv.Itoa(n) }

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
