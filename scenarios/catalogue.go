package scenarios

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
	"github.com/idemsim/idemsim/sim"
)

// The scenario catalogue (bug-zoo §3). Each scenario's fault plan draws its
// timing from the run's "faults" stream around a fixed trigger, so every
// seed exercises the failure and seeds only jitter it; fault.count adds
// generic noise faults on top.

// ms formats a millisecond count for parameter defaults.
func ms(d int64) string { return strconv.FormatInt(d, 10) }

// jitter returns base plus a uniform draw in [0, spread).
func jitter(rng *rand.Rand, base, spread time.Duration) time.Duration {
	if spread <= 0 {
		return base
	}
	return base + time.Duration(rng.Int64N(int64(spread)))
}

// withNoise appends fault.count generic faults to a scenario's plan.
func withNoise(rng *rand.Rand, v *params.Values, nodes faults.Nodes, p faults.Plan) faults.Plan {
	n := v.Config().Fault.Count
	if n == 0 {
		return p
	}
	kinds := v.Config().Fault.Kinds
	window := v.Config().Fault.Window
	if window == 0 {
		window = time.Duration(v.Config().App.Records) * v.Config().App.SendInterval
	}
	noise := faults.Generate(rng, faults.GenOptions{Faults: n, Kinds: kinds, Window: window,
		MaxDuration: v.Config().Fault.MaxDuration, Nodes: nodes})
	p.Actions = append(p.Actions, noise.Actions...)
	p.SortByTime()
	return p
}

// restarts is the plan of n crashes of the first producer, each followed by
// a restart down later: crash i comes offset after send number
// (i+1)*records/(n+1).
func restarts(v *params.Values, nodes faults.Nodes, n int64, offset func() time.Duration, down time.Duration) faults.Plan {
	var p faults.Plan
	iv := v.Config().App.SendInterval
	records := v.Config().App.Records
	for i := int64(0); i < n; i++ {
		k := (i + 1) * records / (n + 1)
		at := time.Duration(k)*iv + offset()
		p.Actions = append(p.Actions,
			faults.Timed{At: at, Action: faults.Crash{Node: nodes.Clients[0]}},
			faults.Timed{At: at + down, Action: faults.Restart{Node: nodes.Clients[0]}})
	}
	return p
}

func oneApp(b world.Builder) error {
	b.AddApp(0)
	return nil
}

func reorder() *Scenario {
	return &Scenario{
		Name:    "reorder",
		Summary: "with several requests in flight, a batch that fails transiently is overtaken by later ones",
		Story: `The producer keeps up to 5 requests in flight. The broker answers one
batch NOT_ENOUGH_REPLICAS (retriable; nothing appended) while the batches
behind it on the same connection are appended. Without idempotence the
failed batch is retried and lands after them: the partition's order is
not the order sent (bug-zoo Z02). With idempotence the broker answers the
later batches OUT_OF_ORDER_SEQUENCE_NUMBER because of the gap; they are
not the head batch, so the client retries them in order without an epoch
bump, and the log keeps the order sent.

Restarts break it in real Kafka (simulate -explore, 2 faults): after two
unclean broker restarts the window keeps each producer's newest batch
only, and a retry of an older batch is bumped and appended again
(INV-DUP); a restarted producer's new producer id, unknown to the
partition, can have batch 1 appended before a failed batch 0 (INV-SEQ),
as in emptypart.

The brokers run Kafka 4.5 (broker.version=4.5, with 4.1 clients): before
4.5 a failed first batch on the new partition can be overtaken through the
empty-partition hole (KAFKA-15591, scenario emptypart), which would mix
that story into this one; -set broker.version=4.1 shows both.`,
		ExpectOff: "records out of order (INV-ORDER fails)",
		ExpectOn:  "retriable OUT_OF_ORDER_SEQUENCE_NUMBER errors, no reordering, no duplicates",
		Defaults: []params.KV{{Key: "records", Value: "40"}, {Key: "send.interval.ms", Value: "1"}, {Key: "batch.size", Value: "1"},
			{Key: "broker.transient_error", Value: "0.05"}, {Key: "net.disconnect_notice", Value: "0"}, {Key: "broker.version", Value: "4.5"}},
		OffShows: []string{"INV-ORDER"},
		build:    oneApp,
	}
}

func inflight6() *Scenario {
	return &Scenario{
		Name:    "inflight6",
		Summary: "the sixth in-flight batch falls outside the broker's 5-batch window",
		Story: `Six requests are in flight (max.in.flight.requests.per.connection=6,
which Kafka refuses with idempotence; max.in.flight.above.five=true is the
what-if switch). All six are appended, but the first one's acknowledgement
is lost, which breaks the connection. When the first batch is retried the
broker's window holds only the 5 newer batches: the retry is neither a
cached duplicate nor the next sequence, so it gets
OUT_OF_ORDER_SEQUENCE_NUMBER. The Java client takes that for a real gap at
the head, bumps the epoch, renumbers and resends: everything unacknowledged
lands twice (bug-zoo Z03). With max.in.flight=5 the retry is still in the
window and is answered as a duplicate, whatever messages are lost or
delayed; two unclean broker restarts still duplicate, because the
rebuilt window keeps each producer's newest batch only (simulate -explore
with 2 crashes).

The story needs one copy of the partition (brokers=1, the default). With
replicas (-set brokers=3) an acks=all request is answered only once its
followers have the batch, and the broker reads a connection's next
request only after it answered the previous one (Kafka mutes the channel
meanwhile), so the six are never all appended when the first answer is
lost: the retry finds its batch in the window, and idempotence holds.`,
		ExpectOff: "duplicates (INV-DUP fails)",
		ExpectOn:  "duplicates too: the evicted retry is re-appended under a bumped epoch",
		Defaults: []params.KV{{Key: "records", Value: "30"}, {Key: "send.interval.ms", Value: "0"}, {Key: "batch.size", Value: "1"},
			{Key: "max.in.flight.requests.per.connection", Value: "6"}, {Key: "max.in.flight.above.five", Value: "true"},
			{Key: "net.response_loss", Value: "0.1"}, {Key: "request.timeout.ms", Value: "1000"}, {Key: "net.disconnect_notice", Value: "0"}},
		OffShows: []string{"INV-DUP"},
		OnShows:  []string{"INV-DUP"},
		OnNote:   "Kafka's broker keeps 5 batches; a client with 6 in flight loses the dedup guarantee, which is why Kafka caps max.in.flight at 5 with idempotence",
		build:    oneApp,
	}
}

func restart() *Scenario {
	return &Scenario{
		Name:    "restart",
		Summary: "a producer restart without transactional.id gets a new producer id, so retries across it duplicate",
		Story: `The producer process crashes right after sending a batch that the broker
appends, before the acknowledgement arrives. The application restarts it
and, being at-least-once, sends again every record it had not seen
acknowledged. The new instance has no transactional.id, so InitProducerId
gives it a new producer id: the broker cannot tell the resent batch from
new data, with idempotence on or off (bug-zoo Z04). Idempotence holds
within one producer session only; transactions are Kafka's answer.`,
		ExpectOff: "duplicates after each restart (INV-DUP fails)",
		ExpectOn:  "duplicates too: the restarted instance has a new producer id",
		Defaults:  []params.KV{{Key: "records", Value: "40"}, {Key: "fault.producer.resend", Value: "true"}, {Key: "batch.size", Value: "1"}},
		Extra: []params.Param{
			{Key: "restart.count", Kind: params.Int, Default: "2", Unit: "restarts", Doc: "producer crashes, each followed by a restart", Min: 1, Max: 20},
			{Key: "restart.down.ms", Kind: params.Int, Default: "500", Unit: "ms", Doc: "time the producer stays down", Min: 0, Max: 3_600_000},
		},
		OffShows: []string{"INV-DUP"},
		OnShows:  []string{"INV-DUP"},
		OnNote:   "the broker deduplicates per producer id; a new instance without transactional.id has a new one (Kafka documents idempotence as per-session)",
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			// Just after a send, while its acknowledgement is on the way
			// back: base latency plus a little.
			lat := v.Config().Net.Latency.Base + v.Config().Net.Latency.Spread
			p := restarts(v, nodes, v.Config().Extra.RestartCount, func() time.Duration {
				return jitter(rng, lat, v.Config().Net.Latency.Spread)
			}, v.Config().Extra.RestartDown)
			return withNoise(rng, v, nodes, p)
		},
	}
}

func zombie() *Scenario {
	return &Scenario{
		Name:    "zombie",
		Summary: "an exactly-once application's paused instance is fenced by its replacement; nothing is lost or written twice",
		Story: `An exactly-once application (app.mode=exactly-once) reads input records in
order and writes each as an output record in transactions of 10 that also
commit its input position (AddOffsetsToTxn to the transaction coordinator
c1, TxnOffsetCommit to the group coordinator g1; semantics T5). Its
instance v1 (p1) has producer id 42. v1 stalls in a GC pause longer than
its supervisor waits: 650ms after the pause starts the application starts
v2 (p2) with the same transactional.id. v2's InitProducerId bumps the
epoch and aborts v1's open transaction (markers with the new epoch); v2
then fetches the committed input position (OffsetFetch with
require_stable) and resumes there, so it sends again exactly what v1 had
not committed. When v1 wakes, its writes, its offset commit or its
EndTxn carry the old epoch and are refused (INVALID_PRODUCER_EPOCH,
PRODUCER_FENCED): v1 is fenced, and every input record appears exactly
once in the committed output (INV-EOS).

app.mode=at-least-once, for contrast, is the application that sends again
whatever v1 left unresolved: when v1's commit landed but the pause hid
its answer (about 1% of seeds), those records are committed twice
(INV-DUP). Whichever instance calls initTransactions last wins: if v1's
InitProducerId is delayed past v2's (simulate -explore, 1 fault), v1 gets
the newer epoch and fences v2, which stops with PRODUCER_FENCED (LIVE-PROD
reports a spurious fatal); v1 commits the input and nothing is lost or
written twice. Every instance, the first one included, reads its input
from the committed position once initTransactions is done, and so does a
crashed instance that restarts. A non-transactional idempotent zombie is never fenced: a new
instance gets a new producer id, which is the restart story (scenario
restart). Without idempotence (-idempotence=false) there is no
transactional.id, and Kafka allows no transactions: the application runs
at least once, v1's late writes land and duplicate what v2 sent again.`,
		ExpectOff: "no transactional.id: the application runs at least once; v1's late writes land (zombie_writes > 0) and duplicate v2's (INV-DUP)",
		ExpectOn:  "v1 is fenced (fenced > 0), zombie_writes = 0, no duplicates, every input record exactly once in the committed output (INV-EOS holds)",
		Defaults: []params.KV{{Key: "records", Value: "60"}, {Key: "transactional.id", Value: "t1"}, {Key: "transaction.records", Value: "10"}, {Key: "app.mode", Value: "exactly-once"},
			{Key: "coordinator.next.pid", Value: "42"}, {Key: "linger.ms", Value: "1000"}, {Key: "batch.size", Value: "50"}},
		Extra: []params.Param{
			{Key: "pause.at", Kind: params.Duration, Default: "2.9s", Doc: "when v1's pause starts (jittered by up to 300ms; the window holds the commit of v1's third transaction)", Min: 0, Max: 3600e9},
			{Key: "pause.ms", Kind: params.Int, Default: "25000", Unit: "ms", Doc: "length of v1's GC pause", Min: 0, Max: 3_600_000},
			{Key: "takeover.after.ms", Kind: params.Int, Default: "500", Unit: "ms", Doc: "time from the pause's nominal start to v2's start (plus 150ms): how fast the application's supervisor replaces an unresponsive instance", Min: 0, Max: 3_600_000},
		},
		OffShows: []string{"INV-DUP"},
		build: func(b world.Builder) error {
			a := b.AddApp(0)
			at := b.Config().Extra.PauseAt + b.Config().Extra.TakeoverAfter
			// v2 starts at a fixed offset from the pause's nominal start;
			// the plan jitters the pause itself.
			b.AddInstance(a, sim.Time(at+150*time.Millisecond))
			return nil
		},
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			at := jitter(rng, v.Config().Extra.PauseAt, 300*time.Millisecond)
			p := faults.Plan{Actions: []faults.Timed{{At: at, Action: faults.Pause{Node: nodes.Clients[0], For: v.Config().Extra.Pause}}}}
			return withNoise(rng, v, nodes, p)
		},
	}
}

func expiry() *Scenario {
	return &Scenario{
		Name:    "expiry",
		Summary: "producer state expires while a retry is pending: the retry is appended again (KIP-360's hole)",
		Story: `The producer sends a batch; the broker appends it, but the acknowledgement
is lost. The application then goes idle. Before the producer's request
times out and it retries, the producer has been idle longer than
producer.id.expiration.ms and the broker's periodic check removes its
state. The retry finds no state; an unknown producer is accepted at any
sequence (Kafka 2.5+), so the batch is appended a second time (bug-zoo
Z07, the hazard variant). When the producer resumes after the idle
period, its next batches are accepted as the first of an unknown producer.`,
		ExpectOff: "the retried batch lands twice (INV-DUP fails)",
		ExpectOn:  "the retried batch lands twice too (INV-DUP and INV-SEQ fail): a documented hole of KIP-360",
		Defaults: []params.KV{{Key: "records", Value: "20"}, {Key: "batch.size", Value: "1"}, {Key: "producer.id.expiration.ms", Value: "10000"},
			{Key: "producer.id.expiration.check.interval.ms", Value: "1000"}, {Key: "net.disconnect_notice", Value: "0"},
			{Key: "app.idle.after", Value: "10"}, {Key: "app.idle.ms", Value: "60000"}},

		OffShows: []string{"INV-DUP"},
		OnShows:  []string{"INV-DUP", "INV-SEQ"},
		OnNote:   "KIP-360 keeps state for producer.id.expiration.ms only; a retry that arrives after expiry is accepted as new data",
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			// Lose the acknowledgement of the last request before the
			// idle period (requests on p1>b1 count from 1, one per record
			// with batch.size=1).
			p := faults.Plan{Actions: []faults.Timed{{At: 0, Action: faults.Drop{Dir: simnet.Response, N: v.Config().App.IdleAfter,
				From: nodes.Clients[0], To: nodes.Servers[0]}}}}
			return withNoise(rng, v, nodes, p)
		},
	}
}

func statelost() *Scenario {
	return &Scenario{
		Name:    "statelost",
		Summary: "the broker restarts while a retry is pending: rebuilt state deduplicates it, lost state does not",
		Story: `The broker appends a batch and its acknowledgement is lost. Before the
producer retries, the broker crashes and restarts. Kafka rebuilds the
producer state from its snapshot and the log (broker.restart.rebuild=log),
so the retry is recognised as a duplicate of the newest batch. A broker
that comes back without producer state (broker.restart.rebuild=none,
bug-zoo Z08) accepts the retry as the first batch of an unknown producer
and appends it again.

With several batches written but unacknowledged at the restart (fault
noise, fault.count), real Kafka duplicates too: the rebuilt window holds
the newest batch only, the head batch's retry gets
OUT_OF_ORDER_SEQUENCE_NUMBER, and the Java client bumps the epoch and
appends the older batches again (INV-DUP). With broker.transient_error, a
restarted producer's new producer id, unknown to the partition, can have
batch 1 appended before a failed batch 0 (INV-SEQ), as in emptypart.`,
		ExpectOff: "the retried batch lands twice (INV-DUP fails)",
		ExpectOn:  "the retry is deduplicated after the restart; INV-STATE holds",
		Defaults:  []params.KV{{Key: "records", Value: "20"}, {Key: "send.interval.ms", Value: "200"}, {Key: "batch.size", Value: "1"}, {Key: "request.timeout.ms", Value: "3000"}, {Key: "net.disconnect_notice", Value: "0"}},
		Extra: []params.Param{
			{Key: "restart.clean", Kind: params.Bool, Default: "true", Doc: "the broker shuts down cleanly (snapshot at the log end) rather than crashing"},
			{Key: "restart.down.ms", Kind: params.Int, Default: "500", Unit: "ms", Doc: "time the broker stays down", Min: 0, Max: 3_600_000},
		},
		OffShows: []string{"INV-DUP"},
		Bugs:     []string{"Z08"},
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			k := 1 + rng.Int64N(max(1, v.Config().App.Records-2))
			iv := v.Config().App.SendInterval
			crash := time.Duration(k)*iv - iv/2 + jitter(rng, 0, iv/4)
			down := v.Config().Extra.RestartDown
			p := faults.Plan{Actions: []faults.Timed{
				{At: 0, Action: faults.Drop{Dir: simnet.Response, N: k, From: nodes.Clients[0], To: nodes.Servers[0]}},
				{At: crash + iv, Action: faults.Crash{Node: nodes.Servers[0]}},
				{At: crash + iv + down, Action: faults.Restart{Node: nodes.Servers[0], Clean: v.Config().Extra.RestartClean}},
			}}
			return withNoise(rng, v, nodes, p)
		},
	}
}

func wrap() *Scenario {
	return &Scenario{
		Name:    "wrap",
		Summary: "sequence numbers wrap around (a narrow sequence space reaches the wrap quickly)",
		Story: `With sequence.bits=8 the sequence space is 0..255, so the producer wraps
every 256 records, and batches of 7 records straddle the wrap (for
example 252..2). The broker treats 255 -> 0 as contiguous
(ProducerAppendInfo.inSequence) and caches straddling batches normally,
so a retry across the wrap is still recognised. Acknowledgements are lost
now and then, so duplicates show without idempotence.

The Java client (client.policy=java) does its sequence arithmetic in plain
int (TransactionManager.isNextSequence, TxnPartitionEntry): past the wrap
its lastAckedSequence sticks until the next epoch bump, and when batches on
both sides of the wrap must be retried, the one past it (the lower int)
goes first. The broker answers OUT_OF_ORDER_SEQUENCE_NUMBER, the client
retries it without a bump until delivery.timeout.ms, and then the stalled
records fail and the epoch is bumped (seed 130). Nothing is duplicated or
lost; -set client.policy=librdkafka wraps.

The sequence space must be wider than the window spans: with
sequence.bits=3 (8 sequence numbers) the window can hold a batch whose
range a batch one wrap later repeats, and the broker answers the new
batch as a duplicate of the old one: acknowledged but not written
(INV-DEDUP, INV-LOSS; simulate -explore finds it with 2 pauses of the
producer, which make batches of 4). Kafka's 31 bits never wrap within a
window.`,
		ExpectOff: "duplicates from lost acknowledgements (INV-DUP fails)",
		ExpectOn:  "no duplicates or losses at the wrap; the Java client's int arithmetic can stall a retry across it until delivery.timeout.ms (records fail, the epoch is bumped)",
		Defaults: []params.KV{{Key: "records", Value: "600"}, {Key: "send.interval.ms", Value: "2"}, {Key: "batch.size", Value: "7"}, {Key: "linger.ms", Value: "20"},
			{Key: "sequence.bits", Value: "8"}, {Key: "net.response_loss", Value: "0.02"}, {Key: "request.timeout.ms", Value: "1000"}},
		OffShows: []string{"INV-DUP"},
		build:    oneApp,
	}
}

func epochx() *Scenario {
	return &Scenario{
		Name:    "epochx",
		Summary: "epoch exhaustion: repeated restarts with a transactional.id rotate the producer id",
		Story: `The producer has a transactional.id and is restarted again and again; each
new instance's InitProducerId bumps the epoch. With epoch.bits=4 epochs run
0..7 and the coordinator counts an epoch as exhausted at 6: the next
InitProducerId allocates a new producer id at epoch 0 (bug-zoo Z10,
TransactionMetadata.isEpochExhausted). Every restart happens after the
producer's last batch was acknowledged, so nothing is in doubt.

Beyond the plan, real Kafka fails too. If an acknowledgement is lost
before a restart (net.response_loss, fault.count), the application sends
the record again through the new instance (fault.producer.resend: at
least once, as in restart); under the new epoch or producer id it starts
at sequence 0 and is appended twice (INV-DUP): the broker deduplicates
within one producer session only, and the transactional.id fences the old
instance without deduplicating its records. A rotated producer id is
unknown to the partition, which accepts its first batch at any sequence
(ProducerAppendInfo.checkSequence; KAFKA-15591 covers never-written
partitions only): if its batch 0 fails transiently and batch 1 lands
first, INV-SEQ and INV-ORDER fail as in emptypart
(-set broker.transient_error=0.5).`,
		ExpectOff: "nothing to show: without idempotence there are no producer ids or epochs",
		ExpectOn:  "the producer id rotates at the exhausted epoch; INV-EPOCH holds",
		Defaults: []params.KV{{Key: "records", Value: "40"}, {Key: "transactional.id", Value: "t1"}, {Key: "transaction.records", Value: "4"}, {Key: "epoch.bits", Value: "4"}, {Key: "batch.size", Value: "1"},
			{Key: "fault.producer.resend", Value: "true"}},
		Extra: []params.Param{
			{Key: "restart.count", Kind: params.Int, Default: "9", Unit: "restarts", Doc: "producer restarts", Min: 1, Max: 100},
		},
		OffNote: "epochs exist only with idempotence",
		Bugs:    []string{"K19367"},
		build:   oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			// Half an interval after a send: its acknowledgement is in.
			iv := v.Config().App.SendInterval
			p := restarts(v, nodes, v.Config().Extra.RestartCount, func() time.Duration {
				return iv/2 + jitter(rng, 0, iv/10)
			}, iv/10)
			return withNoise(rng, v, nodes, p)
		},
	}
}

func seqreuse() *Scenario {
	return &Scenario{
		Name:    "seqreuse",
		Summary: "a client that reuses sequence numbers makes the broker 'deduplicate' new data: acknowledged but lost",
		Story: `Midway, the topic's metadata flaps (a restarting broker briefly reports it
missing). A correct client keeps its per-partition sequence state. The
librdkafka 1.9.0 defect (-bug Z11) dropped the partition objects and
restarted their sequences at 0; the broker still holds the producer's
state, finds the new batches' ranges in its window and answers them as
duplicates with the old offsets: the application sees success, but its
records are not in the log (bug-zoo Z11). The franz-go #1217 variant
(-bug Z11f) frees the sequence numbers of a batch that timed out after it
was written, so the next records take them and are swallowed the same way.`,
		ExpectOff: "nothing to show: without idempotence there are no sequence numbers",
		ExpectOn:  "no loss with a correct client; with -bug Z11 or Z11f, INV-DEDUP and INV-LOSS fail",
		Defaults: []params.KV{{Key: "records", Value: "40"}, {Key: "batch.size", Value: "1"}, {Key: "delivery.timeout.ms", Value: "3000"}, {Key: "request.timeout.ms", Value: "1000"},
			{Key: "app.idle.after", Value: "22"}, {Key: "app.idle.ms", Value: "4000"}},
		Extra: []params.Param{
			{Key: "metaflap.at.ms", Kind: params.Int, Default: "450", Unit: "ms", Doc: "when the topic's metadata flaps, after the first 5 batches (0: never)", Min: 0, Max: 3_600_000},
			{Key: "cut.at.ms", Kind: params.Int, Default: "2100", Unit: "ms", Doc: "when the broker's responses to the producer are cut (one-way partition; 0: never)", Min: 0, Max: 3_600_000},
			{Key: "cut.ms", Kind: params.Int, Default: "3300", Unit: "ms", Doc: "how long the responses stay cut: a little longer than delivery.timeout.ms, so the first written batch expires", Min: 0, Max: 3_600_000},
		},
		OffNote: "sequence numbers exist only with idempotence",
		Bugs:    []string{"Z11", "Z11f"},
		build: func(b world.Builder) error {
			b.AddApp(0)
			if at := b.Config().Extra.MetaflapAt; at > 0 {
				b.MetaFlap(sim.Time(at))
			}
			return nil
		},
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			var p faults.Plan
			if at := v.Config().Extra.CutAt; at > 0 {
				// Just after a send reaches the broker, before its
				// response leaves: the batch is written, unacknowledged.
				at += jitter(rng, v.Config().Net.Latency.Base+v.Config().Net.Latency.Spread*2, v.Config().Net.Latency.Spread)
				b, c := []string{nodes.Servers[0]}, []string{nodes.Clients[0]}
				p.Actions = append(p.Actions,
					faults.Timed{At: at, Action: faults.CutOneWay{A: b, B: c}},
					faults.Timed{At: at + v.Config().Extra.Cut, Action: faults.HealOneWay{A: b, B: c}})
			}
			return withNoise(rng, v, nodes, p)
		},
	}
}

func emptypart() *Scenario {
	return &Scenario{
		Name:    "emptypart",
		Summary: "a never-written partition accepts any first sequence, so a later batch overtakes a retried one (KAFKA-15591)",
		Story: `The topic was just created. The producer sends batch A (sequence 0..16)
and, behind it, batch B (17..21). The partition is not ready for A and
answers NOT_LEADER_OR_FOLLOWER (retriable); B arrives when it is ready.
Up to Kafka 4.4 an unknown producer is accepted at any sequence, so B is
appended first, and every retry of A then gets OUT_OF_ORDER_SEQUENCE_NUMBER;
A is not the head batch, so the client never bumps and A fails at
delivery.timeout.ms (bug-zoo Z12). This is the behaviour of idemsim's
default, kafka.version=4.1, so the failure shows with idempotence on. Kafka
4.5 (-set kafka.version=4.5, or broker.version=4.5 for an upgrade of the
brokers alone; broker.empty.partition.check=true) rejects B until A has
landed; -bug Z12 turns the hole back on there.`,
		ExpectOff: "B lands before A (INV-ORDER fails)",
		ExpectOn:  "at kafka.version 4.1 (the default) INV-SEQ fails: B lands before A and A's records fail at delivery.timeout.ms; at 4.5, A lands, then B (with -bug Z12, INV-SEQ fails again)",
		Defaults: []params.KV{{Key: "records", Value: "22"}, {Key: "send.interval.ms", Value: "0"}, {Key: "batch.size", Value: "17"}, {Key: "linger.ms", Value: "5"},
			{Key: "partition.not_ready.batches", Value: "1"}, {Key: "net.latency.base", Value: "5ms"},
			{Key: "delivery.timeout.ms", Value: "30000"}, {Key: "request.timeout.ms", Value: "10000"}},
		OffShows: []string{"INV-ORDER"},
		OnShows:  []string{"INV-SEQ"},
		OnNote:   "Kafka before 4.5 has the empty-partition hole (KAFKA-15591); the default kafka.version is 4.1",
		Bugs:     []string{"Z12"},
		build:    oneApp,
	}
}

func crossbump() *Scenario {
	return &Scenario{
		Name:    "crossbump",
		Summary: "an epoch bump for one partition's error resends another partition's possibly-written batch as new",
		Story: `One producer writes two partitions over one connection. On partition 0
a batch fails transiently (NOT_ENOUGH_REPLICAS) and the batches behind it
get OUT_OF_ORDER_SEQUENCE_NUMBER; meanwhile an acknowledgement for
partition 1 is lost, so a partition-1 batch is written but unacknowledged.
The Java client treats an OUT_OF_ORDER_SEQUENCE_NUMBER on a batch that is
not the head as "retry, do not bump", and renumbers only the partition it
bumps (KAFKA-12152). The librdkafka defect (-bug Z13, librdkafka #4953)
bumps the epoch and resets every partition's sequences, so partition 1's
written batch goes out again as epoch+1, sequence 0, and is appended twice.

Broker restarts among the faults (fault.count) break the promise in real
Kafka too: a restarted broker keeps each producer's newest batch only
(its snapshot holds one), so a retry of an older written batch gets
OUT_OF_ORDER_SEQUENCE_NUMBER; for the head batch the Java client bumps and
resends it at sequence 0, and INV-DUP fails without any -bug (a head batch,
unlike Z13's). A producer restart's new producer id is accepted at any
first sequence, so INV-SEQ and INV-ORDER can fail as in emptypart.

The brokers run Kafka 4.5 (broker.version=4.5, with 4.1 clients), so that
the empty-partition hole of earlier releases (KAFKA-15591, scenario
emptypart) does not mix into the story; -set broker.version=4.1 shows
both.`,
		ExpectOff: "duplicates and reordering from the same faults (INV-DUP or INV-ORDER fails)",
		ExpectOn:  "no duplicates; with -bug Z13, INV-DUP fails on the other partition",
		Defaults: []params.KV{{Key: "records", Value: "120"}, {Key: "partitions", Value: "2"}, {Key: "send.interval.ms", Value: "1"}, {Key: "batch.size", Value: "1"},
			{Key: "broker.transient_error", Value: "0.03"}, {Key: "net.response_loss", Value: "0.03"}, {Key: "request.timeout.ms", Value: "1000"}, {Key: "broker.version", Value: "4.5"}},
		OffShows: []string{"INV-DUP", "INV-ORDER"},
		Bugs:     []string{"Z13", "Z17", "KAFKA-14904"},
		build:    oneApp,
	}
}

// leadersOf returns the leader destination of n partitions: all on b1.
func leadersOf(n int) []int32 { return make([]int32, n) }

var _ = model.DestCoordinator

func txntimeout() *Scenario {
	return &Scenario{
		Name:    "txntimeout",
		Summary: "a transaction outlives transaction.timeout.ms during a pause: the coordinator aborts it and must bump the epoch",
		Story: `The producer runs transactions of 10 records over two partitions. Right
after the first record of a transaction (on partition 0) is acknowledged,
the producer stalls in a pause longer than transaction.timeout.ms. The
coordinator aborts the transaction and bumps the epoch (KAFKA-6119's fix).
The scenario runs Kafka 3.9 (kafka.version=3.9: the classic transaction
protocol): when the producer wakes, its AddPartitionsToTxn for partition 1
is fenced (PRODUCER_FENCED, fatal): the record acknowledged before the
pause keeps its produce acknowledgement, the transaction is reported
failed, and the records sent after the pause fail. Under transaction
version 2 (-set kafka.version=4.1: Kafka 4.0+ clients and clusters) the
producer recovers: its next batch is refused (INVALID_PRODUCER_EPOCH,
abortable), its EndTxn(ABORT) at the old epoch is accepted as a retry of
the abort and returns the bumped epoch, and the next transactions commit.
With the 0.11 defect (-bug Z05b) the abort keeps the epoch: the
producer's AddPartitionsToTxn starts a new transaction, its commit
succeeds, and the application believes records were committed that were
aborted or never joined the committed transaction (bug-zoo Z05, schedule b).
The -bug also turns KIP-890 verification off, as in the Kafka of the time.`,
		ExpectOff: "nothing to show: transactions need idempotence",
		ExpectOn:  "the producer is fenced, its transaction fails and its later records fail (LIVE-PROD's spurious fatal); with -bug Z05b, INV-LOSS fails; at kafka.version=4.1 (transaction version 2) the transaction is aborted and the producer carries on",
		Defaults: []params.KV{{Key: "kafka.version", Value: "3.9"}, {Key: "records", Value: "40"}, {Key: "partitions", Value: "2"}, {Key: "batch.size", Value: "1"}, {Key: "transactional.id", Value: "t1"},
			{Key: "transaction.records", Value: "10"}, {Key: "transaction.timeout.ms", Value: "5000"},
			{Key: "transaction.abort.timed.out.transaction.cleanup.interval.ms", Value: "1000"}},
		Extra: []params.Param{
			{Key: "pause.at", Kind: params.Duration, Default: "50ms", Doc: "when the producer's pause starts (jittered by up to 20ms): after the transaction's first record, before its second", Min: 0, Max: 3600e9},
			{Key: "pause.ms", Kind: params.Int, Default: "8000", Unit: "ms", Doc: "length of the pause (longer than transaction.timeout.ms)", Min: 0, Max: 3_600_000},
		},
		OffNote: "transactions need idempotence",
		OnShows: []string{"LIVE-PROD"},
		OnNote:  "a producer whose transaction timed out is fenced for good under the classic protocol (KIP-588's graceful recovery is only partly implemented), which the checker reports as a spurious fatal; transaction version 2 (Kafka 4.0+) recovers",
		Bugs:    []string{"Z05b"},
		build:   oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			at := jitter(rng, v.Config().Extra.PauseAt, 20*time.Millisecond)
			p := faults.Plan{Actions: []faults.Timed{{At: at, Action: faults.Pause{Node: nodes.Clients[0], For: v.Config().Extra.Pause}}}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
