package validate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
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
	// Clients, if set, are the only real clients the scenario runs with;
	// ClientsNote says why the others are refused.
	Clients     []string
	ClientsNote string
	// PauseAfterAck: the scenario's pause lands after the client's first
	// acknowledgement in the simulation; the real client's first
	// acknowledgement comes later (its connection set-up is real), so
	// the real side's pause waits for it.
	PauseAfterAck bool
	// Group: the scenario is a consumer-group application
	// (app.mode=exactly-once-v2): its real side is RunRealGroup, and it
	// is compared on groupCounters, not on error codes.
	Group bool
	// ClientDiffs names the counters a documented difference between the
	// real client and the simulated one's model reaches, with the
	// reason; they are reported but left out of the overall verdict.
	ClientDiffs map[string]string
	// Deviations names the kfake deviations (docs/validate.md) a run of
	// the scenario can reach, and the counters they affect; those
	// counters are reported but left out of the overall verdict.
	Deviations map[string]string
	// Timing says how the real side's timing, which the simulator does
	// not have, moves the scenario's counts (docs/validate.md, "Timing
	// of the real side"), for the report's notes. The counters stay in
	// the verdict: a difference it explains is still a difference.
	Timing string
}

// supported are the scenarios validate runs (docs/validate.md).
var supported = map[string]Support{
	"ackloss": {Off: true, On: true, Scale: 0.05, Instances: 1,
		Timing: "with requests in flight, the proxy's timers (at least about 1 ms on a loaded machine) and kgo's ApiVersions round trip at every reconnect weigh more against the 5 ms send interval of time scale 0.05 than their scaled counterparts do in the simulator: more records wait during a reconnect and more answers are lost with a lost one (docs/validate.md); at -time-scale 1 the duplicates agree more closely"},
	"reorder": {Off: true, On: true, Scale: 1, Instances: 1,
		Note: "broker.transient_error is the proxy answering NOT_ENOUGH_REPLICAS in the broker's place"},
	// inflight6 at 0.5, not 0.05: on a loaded machine (load average 12
	// on 2 cores) its real side at 0.05 reordered 2.4% of records and
	// duplicated 0.33 against 0.45 simulated, at 0.5 neither
	// (docs/validate.md).
	"inflight6": {Off: true, Scale: 0.5, Instances: 1,
		Note:   "idempotence off only: franz-go refuses MaxProduceRequestsInflightPerBroker with idempotence and keeps 5 in flight",
		Timing: "kfake answers a connection's requests one at a time (client_conn.go, read), each taking a real fraction of a millisecond, more on a loaded machine, where the simulated broker answers at once: requests sent together are answered spread out, so fewer answers are lost with a lost one and the real side duplicates less (docs/validate.md); librdkafka's larger gap was its socket's Nagle hold, now modelled (client.policy=librdkafka, model/client/nagle.go)"},
	"restart": {Off: true, On: true, Scale: 1, Instances: 1,
		Note: "real time scale 1: the crash races the acknowledgement, so latencies must be comparable"},
	// txnlate: the proxy holds the EndTxn (Proxy.ArmLate) and the
	// broker reads it after the client gave up on its connection.
	"txnlate": {On: true, Scale: 0.5, Instances: 1,
		Note: "idempotence on only: transactions need idempotence; the held EndTxn is the proxy's ArmLate",
		Deviations: map[string]string{
			"errors[NOT_ENOUGH_REPLICAS]":          txnSync,
			"errors[CONCURRENT_TRANSACTIONS]":      txnSync, // librdkafka's AddPartitionsToTxn (the classic protocol)
			"errors[OUT_OF_ORDER_SEQUENCE_NUMBER]": txnSync,
			"errors[INVALID_TXN_STATE]":            txnSync,
			"failed":                               txnSync,
		}},
	// txntimeout: the pause waits for the first acknowledgement, which
	// comes later on the real side (PauseAfterAck); kfake offers
	// transaction version 2 only, so both sides run kafka.version=4.1.
	"txntimeout": {On: true, Scale: 0.25, Instances: 1, PauseAfterAck: true,
		Clients:     []string{ClientFranzGo},
		ClientsNote: "after the timeout librdkafka (whose classic protocol sends AddPartitionsToTxn at the stale epoch; kfake answers it INVALID_TXN_STATE) and sarama (whose real run does not end within its deadline after the fencing, 5 runs) reach behaviour of kfake's and their own that is not mapped yet",
		Sets:        []params.KV{{Key: "kafka.version", Value: "4.1"}},
		Note:        "idempotence on only: transactions need idempotence; at kafka.version=4.1, since kfake offers transaction version 2 only; the pause is a proxy hold of the client's connections from its first acknowledgement, and the application hands it nothing meanwhile",
		Deviations: map[string]string{
			"fenced":                         txnStale,
			"failed":                         txnStale,
			"errors[INVALID_PRODUCER_EPOCH]": txnStale,
			"errors[PRODUCER_FENCED]":        txnStale,
			"errors[PRODUCER_FENCED(fatal)]": txnStale,
		}},
	// eosv2: the real application is franz-go's GroupTransactSession
	// (groupapp.go), compared on groupCounters.
	"eosv2": {On: true, Scale: 0.1, Instances: 2, Group: true,
		Clients:     []string{ClientFranzGo, ClientSarama},
		ClientsNote: "the real applications are franz-go's GroupTransactSession and sarama's consumer group with a transactional producer (groupapp); librdkafka's is not written",
		Note:        "idempotence on only: without it the simulated instances run no transactions, and the real application is transactional; the pause is a hold of the instance's proxy that also stops its loop before the transaction's end",
		ClientDiffs: map[string]string{
			"txn_aborted": "at a rebalance kgo's GroupTransactSession aborts the live instance's open transaction (End's revoked check, pkg/kgo/txn.go), and sarama's application aborts every transaction whose commit fails and ends its claim (internal/validate/groupapp/sarama.go), where the Java application idemsim models commits in onPartitionsRevoked (docs/validate.md)",
		}},
	// groupid: eosv2 with the deprecated offsets form, which only
	// sarama's application sends (AddOffsetsToTxn(offsets, groupId)).
	"groupid": {On: true, Scale: 0.1, Instances: 2, Group: true,
		Clients:     []string{ClientSarama},
		ClientsNote: "the deprecated sendOffsetsToTransaction(offsets, groupId): sarama's AddOffsetsToTxn(offsets, groupId) sends it (generation -1, no member id: consumer_group_metadata.go NewConsumerGroupMetadata), which kfake accepts as Kafka does (groups.go validateMemberGeneration); franz-go has no counterpart (GroupTransactSession always commits with the consumer's group metadata, pkg/kgo/txn.go End), and librdkafka's application (NewTestConsumerGroupMetadata) is not written",
		Note:        "idempotence on only: without it the simulated instances run no transactions, and the real application is transactional; the pause is a hold of the instance's proxy that also stops its loop before the transaction's end"},
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

// txnStale is the kfake deviation txntimeout reaches.
const txnStale = "kfake adds a partition to a transaction, and starts one, before it checks the produce's epoch (txns.go pids.get), so the stale produce after a timed-out transaction opens a new transaction and the client's EndTxn(ABORT) at the old epoch is fenced instead of accepted as a retry of the timeout's abort (docs/validate.md)"

// txnSync is the kfake deviation txnlate reaches (docs/validate.md).
const txnSync = "kfake ends a transaction inside EndTxn, so the next transaction's first produce never meets the previous one still completing (CONCURRENT_TRANSACTIONS, a marker landing after verification) (docs/validate.md)"

// Supports returns how a scenario can be validated, and false when it
// cannot.
func Supports(name string) (Support, bool) {
	s, ok := supported[name]
	return s, ok
}

// Unsupported explains, for the scenarios validate does not run, why.
var Unsupported = map[string]string{
	"rebalance":     "consumer groups at least once: the real application is the transactional GroupTransactSession (groupapp); a consumer that commits with commitSync or auto-commit is not wired",
	"unstable":      "consumer groups with a pause aimed between an accepted TxnOffsetCommit and its EndTxn (timed from a first simulated run of the seed): franz-go's GroupTransactSession.End sends both in one call, and no hook pauses the real process between them",
	"expiry":        "producer-state expiry needs broker configuration kfake does not expose per run",
	"retention":     "retention.ms and producer-state expiry need broker configuration kfake does not expose per run",
	"statelost":     "needs a broker crash and restart that loses producer state; kfake restarts only as Close and a new cluster on its DataDir, which saves every producer's whole 5-batch cache at Close and reloads it (persist.go saveSeqWindows, persistSeqWindowEntry.Entries [5]), where Kafka's restart keeps the newest batch only, so the state the scenario loses is never lost (docs/validate.md)",
	"wrap":          "sequence.bits narrower than 31 has no real counterpart; kfake wraps sequences modulo 2^31-1",
	"epochx":        "epoch.bits narrower than 16 has no real counterpart",
	"seqreuse":      "metadata flaps and client defects (-bug) have no real counterpart in franz-go 1.22",
	"emptypart":     "partition.not_ready.batches has no proxy counterpart yet",
	"crossbump":     "its epoch bump for one partition while the other writes reaches kfake's one epoch per producer and its epoch raised by a rejected batch (docs/validate.md)",
	"hanging":       "kfake's transaction coordinator is one of its brokers, so the one-way cut from the producer to the partition's leader cuts the producer off from the coordinator too, and its abort waits for the heal: the held batch arrives before the abort and is not fenced (20 real runs with the proxy's late hold: fenced 0 against 1 per run simulated); idemsim's coordinator c1 is a node of its own",
	"lsolag":        "needs a read_committed consumer and a producer paused past transaction.timeout.ms; the real side runs producers only, and a proxy hold is not a process pause",
	"hanging-abort": "needs an admin client's abort-transaction, which the real side does not run, and hanging's one-way cut, which on kfake also cuts the producer off from the coordinator (see hanging)",
	// The replicated scenarios (three brokers, three copies).
	"acks1":         replicated,
	"coordfailover": replicated,
	"failover":      replicated,
	"isolated":      replicated,
	"unclean":       replicated,
	"rolling":       rollingReason,
	"coordmove":     rollingReason,
	"reassign":      reassignReason,
}

// reassignReason is why the reassignment is refused.
const reassignReason = "replicated (four brokers, three copies) with a reassignment and a preferred-leader election: the real side runs no admin client (docs/validate.md)"

// rollingReason is why the rolling restart is refused.
const rollingReason = "replicated (three brokers, three copies) with controlled shutdowns: the real side stops no broker (docs/validate.md)"

// replicated is why the replicated scenarios are refused.
const replicated = "replicated (three brokers, three copies): it needs a broker crash, a leader cut off from its followers and a leader election, and the real side can crash no broker (docs/validate.md)"

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
	// Runs are the real runs per mode (with Auto, the most it may run);
	// SimRuns the simulated ones.
	Runs, SimRuns int
	// Auto (-runs auto) runs real runs until every counter in the
	// verdict is decided, looking at 30, 120, 480, ... runs, or until the
	// Budget runs out (docs/validate.md).
	Auto bool
	// Budget bounds the whole invocation's wall time (both sides, every
	// mode), split evenly over the modes not yet run; 0 is no bound
	// (only without Auto). When it runs out the report holds what was
	// decided so far.
	Budget time.Duration
	// realRunner runs one real run: RunReal, or a test's stand-in.
	realRunner func(context.Context, RealSpec) (Counts, error)
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
	// Client is the real client: ClientFranzGo (default),
	// ClientLibrdkafka (builds with -tags librdkafka only) or
	// ClientSarama.
	Client string
}

// Overrides are the settings validate adds to both sides unless the user
// set them: the client modelled is the real one (client.policy=franz-go
// or librdkafka), and a lost message breaks its connection with a notice
// (the proxy closes it), since franz-go's shortest request timeout is
// 200 ms and waiting it out at every loss would make a run of 2,000
// records take minutes. The application's input is synthetic (a counter
// of message numbers), as the real side's is: restart and zombie read an
// input topic by default in the simulator, and the real application
// reads none.
func (c *Config) overrides() []params.KV {
	var out []params.KV
	policy := c.client()
	if policy == ClientSarama {
		// idemsim has no sarama policy: the Java client's is compared,
		// at the one request in flight sarama's idempotent producer
		// allows.
		policy = "java"
	}
	all := []params.KV{{Key: "client.policy", Value: policy}, {Key: "net.disconnect_notice", Value: "1"}}
	if sup, ok := Supports(c.Scenario.Name); !ok || !sup.Group {
		// A consumer-group application reads its input topic on both
		// sides (groupapp.go).
		all = append(all, params.KV{Key: "app.input", Value: "synthetic"})
	}
	if c.client() == ClientSarama {
		// sarama speaks the protocol of the Kafka version it is
		// configured for (V3_6_0_0, sarama.go): the classic transaction
		// protocol and Produce v9; the Java client of 3.6 does the same,
		// and backs off retry.backoff.ms each time, as sarama does.
		all = append(all, params.KV{Key: "max.in.flight.requests.per.connection", Value: "1"}, params.KV{Key: "client.version", Value: "3.6"})
	}
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
	// Stopped says why the real runs stopped: StopAsked, StopDecided,
	// StopBudget or StopCap; StopText says it in words.
	Stopped  string `json:"stopped"`
	StopText string `json:"stopped_text"`
	// Looks is the number of times the verdict was tested (1 for a
	// fixed -runs; -runs auto tests look j at Alpha/2^j) and Alpha the
	// level of the last one.
	Looks int     `json:"looks"`
	Alpha float64 `json:"alpha"`
	// RunsNeeded is the largest RunsNeeded over the counters in the
	// verdict that are still inconclusive: about how many real runs
	// would decide the mode (nil when decided or not estimable).
	RunsNeeded *int64 `json:"runs_needed"`
}

// Why a mode's real runs stopped.
const (
	StopAsked   = "asked"   // a fixed -runs, all run
	StopDecided = "decided" // -runs auto: every counter in the verdict decided
	StopBudget  = "budget"  // the -budget ran out
	StopCap     = "cap"     // -runs auto reached its most runs
)

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
	// Budget is -budget, "" when none.
	Budget    string `json:"budget,omitempty"`
	Statement string `json:"statement"`
	Runs      []Run  `json:"-"`
}

// Statement is said in every report: what kind of comparison this is.
const Statement = "The real side runs in real time: its results are statistical, not byte-identical, and its runs have no trace hash or reproduce command. " +
	"Each rate is Σx/Σy over runs with a 95% interval (delta method, clustered by run; an interval marked * had no spread between runs, so it is the exact Poisson interval of the total count, not a zero-width one). The verdict is an equivalence test (two one-sided tests at α = 0.05; " +
	"with -runs auto, look j at α = 0.05/2^j so that repeated looks keep the error below 0.05): " +
	"agree when the (1 − 2α) interval of real − sim lies within ±margin; disagree when it is not shown equivalent and the difference is significant; " +
	"otherwise inconclusive. Failing to reject a difference is not agreement. " +
	"Runs to decide: (z(1−α) + z(0.8))²·σ²/(margin − |d|)² towards agree, (z(1−α/2) + z(0.8))²·σ²/d² towards disagree, σ² the observed per-run variance of the difference (docs/validate.md)."

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
	case ClientFranzGo, ClientSarama:
	case ClientLibrdkafka:
		if !HasLibrdkafka() {
			return fmt.Errorf("-client librdkafka: this simulate was built without librdkafka (go build -tags librdkafka ./cmd/simulate; needs cgo): %w", ErrUnsupported)
		}
	default:
		return fmt.Errorf("-client %q is not allowed (allowed: franz-go, librdkafka, sarama)", c.Client)
	}
	if c.Runs < 1 || c.Runs > 100000 {
		return fmt.Errorf("-runs %d is not allowed (allowed: 1..100000, or auto)", c.Runs)
	}
	if c.Budget < 0 || c.Auto && c.Budget == 0 {
		return fmt.Errorf("-budget %v is not allowed (allowed: a positive Go duration such as 5m; -runs auto needs one)", c.Budget)
	}
	if c.SimRuns < 1 || c.SimRuns > 10000000 {
		return fmt.Errorf("-sim-runs %d is not allowed (allowed: 1..10000000)", c.SimRuns)
	}
	if !(c.Margin.Value > 0) || c.Margin.Value > 1e6 || !(c.Margin.Floor >= 0) || c.Margin.Floor > 1e6 {
		return fmt.Errorf("-margin must be > 0 and its floor ≥ 0")
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
	if len(sup.Clients) > 0 && !slices.Contains(sup.Clients, c.client()) {
		return fmt.Errorf("scenario %s is validated with %s only: %s: %w", c.Scenario.Name, strings.Join(sup.Clients, ", "), sup.ClientsNote, ErrUnsupported)
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
		if cfg.App.TopicInput() && !sup.Group {
			return fmt.Errorf("app.input=%s: the real application reads no input topic, its input is synthetic: %w", cfg.App.Input, ErrUnsupported)
		}
		if sup.Group != cfg.App.Mode.Grouped() {
			return fmt.Errorf("app.mode=%s: validate runs %s's real application with its own app.mode only: %w", cfg.App.Mode, c.Scenario.Name, ErrUnsupported)
		}
		if cfg.App.Mode == params.AppExactlyOnce {
			return fmt.Errorf("app.mode=exactly-once: the real application commits no consumer offsets yet: %w", ErrUnsupported)
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
	switch c.client() {
	case ClientLibrdkafka:
		res.Client = "librdkafka " + librdkafkaVersion() + " (confluent-kafka-go " + moduleVersion("github.com/confluentinc/confluent-kafka-go/v2") + ")"
	case ClientSarama:
		res.Client = "IBM/sarama " + moduleVersion("github.com/IBM/sarama") + " AsyncProducer"
	}
	var end time.Time
	if c.Budget > 0 {
		end = time.Now().Add(c.Budget)
		res.Budget = c.Budget.String()
	}
	for k, on := range c.Modes {
		var share time.Time // this mode's end: an even share of what is left
		if !end.IsZero() {
			share = time.Now().Add(time.Until(end) / time.Duration(len(c.Modes)-k))
		}
		mr, runs, err := c.validateMode(ctx, on, sup, share)
		res.Runs = append(res.Runs, runs...)
		if err != nil {
			return res, err
		}
		res.Modes = append(res.Modes, mr)
	}
	return res, nil
}

// validateMode runs one mode: the simulated side, then real runs until
// -runs is reached, or with Auto until the verdict is decided, or until
// end (zero: no end) passes. Running out of time is not an error: the
// mode's result says so and holds what was decided so far.
func (c *Config) validateMode(ctx context.Context, on bool, sup Support, end time.Time) (ModeResult, []Run, error) {
	mode := modeName(on)
	mr := ModeResult{Mode: mode, Verdict: Inconclusive}
	bctx := ctx // the budget's context
	if !end.IsZero() {
		var cancel context.CancelFunc
		bctx, cancel = context.WithDeadline(ctx, end)
		defer cancel()
	}
	budgetOut := func() bool { return ctx.Err() == nil && bctx.Err() != nil }
	runReal := c.realRunner
	if runReal == nil {
		runReal = RunReal
	}
	sim, err := c.runSim(bctx, on)
	if err != nil {
		if budgetOut() {
			mr.Stopped, mr.StopText = StopBudget, "the budget ran out during the simulated side: no real run"
			return mr, nil, nil
		}
		return mr, nil, err
	}
	var real []Run
	start := time.Now()
	look, nextLook, lastLook := 0, AutoMinRuns, 0
	var decided []Comparison
	for i := 0; i < c.Runs; i++ {
		if err := ctx.Err(); err != nil {
			return mr, append(sim, real...), err
		}
		if budgetOut() {
			break
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
		counts, err := runReal(bctx, RealSpec{Resolved: resolved, Plan: plan, Seed: seed, Scale: c.Scale,
			Bootstrap: c.Bootstrap, Instances: sup.Instances, Deadline: deadline, Client: c.client(), Starts: starts, PauseAfterAck: sup.PauseAfterAck})
		if err != nil {
			if budgetOut() {
				break // the budget cut this run: it does not count
			}
			return mr, append(sim, real...), fmt.Errorf("real run %d (seed %d, idempotence %s): %w", i+1, seed, mode, err)
		}
		real = append(real, Run{Side: "real", Mode: mode, Run: i + 1, Seed: seed, Counts: counts,
			TraceHash: "none: real time, not deterministic", Reproduce: "none: real time; rerun simulate validate for a new sample",
			WallMs: time.Since(t0).Milliseconds()})
		if c.Progress != nil {
			c.Progress(on, i+1, c.Runs)
		}
		if c.Auto && len(real) == nextLook {
			look++
			cs := compareRuns(sim, real, c.Margin, sup, lookAlpha(look), false)
			lastLook = len(real)
			if overall(cs) != Inconclusive {
				decided = cs
				break
			}
			nextLook *= lookGrowth
		}
	}
	mr.RealWallMs = time.Since(start).Milliseconds()
	mr.SimRuns, mr.RealRuns = len(sim), len(real)
	switch {
	case decided != nil:
		mr.Comparisons, mr.Looks = decided, look
		mr.Stopped, mr.StopText = StopDecided, fmt.Sprintf("decided after %d real runs (-runs auto, look %d at α = %s)", len(real), look, trimFloat(lookAlpha(look)))
	case c.Auto:
		if len(real) != lastLook || look == 0 {
			look++ // a last look at the runs since the previous one
		}
		mr.Comparisons, mr.Looks = compareRuns(sim, real, c.Margin, sup, lookAlpha(look), false), look
		if len(real) < AutoMinRuns {
			for i := range mr.Comparisons {
				mr.Comparisons[i].Verdict = Inconclusive
				mr.Comparisons[i].Why = "fewer than " + itoa(AutoMinRuns) + " real runs: -runs auto gives no verdict below them"
			}
		}
		// The last look is one of the schedule's: it may decide.
		outcome := "undecided"
		if overall(mr.Comparisons) != Inconclusive {
			outcome = "decided at this last look"
		}
		if budgetOut() {
			mr.Stopped, mr.StopText = StopBudget, fmt.Sprintf("the budget ran out after %d real runs, %s (-runs auto, look %d at α = %s)", len(real), outcome, look, trimFloat(lookAlpha(look)))
		} else {
			mr.Stopped, mr.StopText = StopCap, fmt.Sprintf("reached -runs auto's most, %d real runs, %s (look %d at α = %s)", len(real), outcome, look, trimFloat(lookAlpha(look)))
		}
	default:
		mr.Comparisons, mr.Looks = compareRuns(sim, real, c.Margin, sup, Alpha, true), 1
		if len(real) < c.Runs {
			mr.Stopped, mr.StopText = StopBudget, fmt.Sprintf("the budget ran out after %d of %d real runs", len(real), c.Runs)
		} else {
			mr.Stopped, mr.StopText = StopAsked, fmt.Sprintf("%d real runs as asked", len(real))
		}
	}
	mr.Alpha = mr.Comparisons[0].Alpha
	mr.Verdict = overall(mr.Comparisons)
	mr.RunsNeeded = runsNeeded(mr.Comparisons)
	if sup.Note != "" {
		mr.Notes = append(mr.Notes, sup.Note)
	}
	if sup.Timing != "" {
		mr.Notes = append(mr.Notes, "real-side timing: "+sup.Timing)
	}
	switch {
	case c.client() == ClientLibrdkafka:
		mr.Notes = append(mr.Notes, "client.policy=librdkafka models librdkafka 2.2.0, the release confluent-kafka-go v2.2.0 bundles (docs/validate.md)")
	case c.client() == ClientSarama:
		mr.Notes = append(mr.Notes, "idemsim has no sarama policy: sarama is compared with the Java client's (client.policy=java), one request in flight; a disagreement may be sarama's own (docs/validate.md)")
	case !on:
		mr.Notes = append(mr.Notes, "franz-go without idempotence resends every batch after a failed first batch in order (docs/validate.md); client.policy=franz-go models it")
	default:
		mr.Notes = append(mr.Notes, "franz-go with idempotence keeps up to 5 requests in flight whatever max.in.flight.requests.per.connection says; client.policy=franz-go models it")
	}
	return mr, append(sim, real...), nil
}

// AutoMinRuns is -runs auto's first look and the fewest real runs it
// gives a verdict on: ten runs of a per-run count with a long right tail
// (franz-go's rewind duplicates several batches at once) were often
// below its mean with too narrow an interval (docs/validate.md).
const AutoMinRuns = 30

// lookGrowth is the factor between -runs auto's looks: 30, 120, 480,
// ... real runs. Few looks keep the levels of the later ones
// (lookAlpha) usable: doubling spent α = 0.0004 by 640 runs.
const lookGrowth = 4

// lookAlpha is the level of -runs auto's look j (1, 2, ...): Alpha/2^j,
// so that over every look the chance of a wrong verdict stays below
// Alpha (Σ 2^-j < 1).
func lookAlpha(j int) float64 { return Alpha / math.Pow(2, float64(j)) }

// runsNeeded is the largest estimate of real runs over the inconclusive
// counters in the verdict, nil when none is inconclusive or one cannot
// be estimated.
func runsNeeded(cs []Comparison) *int64 {
	var most *int64
	for _, c := range cs {
		if c.Excluded != "" || c.Verdict != Inconclusive {
			continue
		}
		if c.RunsNeeded == nil {
			return nil
		}
		if most == nil || *c.RunsNeeded > *most {
			most = c.RunsNeeded
		}
	}
	return most
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
						Duplicates: r.Duplicates, Reordered: r.Reordered, LostAcked: r.LostAcked, Fenced: r.Fenced, Errors: r.Errors,
						GroupFenced: min(r.CommitsFencedByGeneration, 1), TxnAborted: r.TxnAborted}}
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

// groupCounters are a consumer-group application's: exactly once (no
// duplicate, no lost record), no epoch fencing, the zombie fenced by the
// group (once a run), and the transactions aborted (a run's count).
var groupCounters = []counter{
	{"duplicates", "sent", func(c *Counts) int64 { return c.Duplicates }, sent},
	{"lost_acked", "acked", func(c *Counts) int64 { return c.LostAcked }, acked},
	{"fenced", "sent", func(c *Counts) int64 { return c.Fenced }, sent},
	{"group_fenced", "run", func(c *Counts) int64 { return c.GroupFenced }, perRun},
	{"txn_aborted", "run", func(c *Counts) int64 { return c.TxnAborted }, perRun},
}

func perRun(*Counts) int64 { return 1 }

var counters = []counter{
	{"duplicates", "sent", func(c *Counts) int64 { return c.Duplicates }, sent},
	{"reordered", "sent", func(c *Counts) int64 { return c.Reordered }, sent},
	{"lost_acked", "acked", func(c *Counts) int64 { return c.LostAcked }, acked},
	{"fenced", "sent", func(c *Counts) int64 { return c.Fenced }, sent},
	{"failed", "sent", func(c *Counts) int64 { return c.Failed }, sent},
}

// compareRuns compares every counter and every error code seen.
func compareRuns(runs, real []Run, m Margin, sup Support, alpha float64, simGrows bool) []Comparison {
	all := append(slices.Clone(runs), real...)
	side := func(r *Run) int {
		if r.Side == "real" {
			return 1
		}
		return 0
	}
	var out []Comparison
	list := counters
	if sup.Group {
		list = groupCounters
	}
	for _, k := range list {
		var ps [2]pair
		for i := range all {
			ps[side(&all[i])].add(k.x(&all[i].Counts), k.y(&all[i].Counts))
		}
		out = append(out, compare(k.name, k.per, &ps[0], &ps[1], m, alpha, simGrows))
	}
	codes := map[string]bool{}
	for _, r := range all {
		for code := range r.Errors {
			codes[code] = !sup.Group
		}
	}
	names := make([]string, 0, len(codes))
	for code, compared := range codes {
		if compared {
			names = append(names, code)
		}
	}
	sort.Strings(names)
	for _, code := range names {
		var ps [2]pair
		for i := range all {
			ps[side(&all[i])].add(all[i].Errors[code], all[i].Sent)
		}
		out = append(out, compare("errors["+code+"]", "sent", &ps[0], &ps[1], m, alpha, simGrows))
	}
	for i := range out {
		if why, ok := sup.Deviations[out[i].Counter]; ok {
			out[i].Excluded = why
		}
		if why, ok := sup.ClientDiffs[out[i].Counter]; ok {
			out[i].Excluded, out[i].ExcludedBy = why, "client"
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
