package scenarios

import (
	"math/rand/v2"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(rolling) }

// rolling is an operations scenario (issue #35, docs/operations.md): a
// rolling restart of three brokers under an exactly-once application.
func rolling() *Scenario {
	return &Scenario{
		Name:    "rolling",
		Summary: "a rolling restart of three brokers under an exactly-once application: every leadership moves by controlled shutdown, the producer retries to the new leaders, nothing is lost or duplicated",
		Story: `Three brokers, three partitions with three copies each (b1, b2 and b3
lead one each at the start), min.insync.replicas=2, and an exactly-once
application (app.mode=exactly-once: transactions of 4 records that
commit the input position) sending a record every 150 ms. An operator
restarts every broker in turn, as for an upgrade: b1 is asked to stop at
fault.at.ms, b2 rolling.gap.ms later, b3 after another gap (the plan's
"shutdown" lines, docs/plans.md). Each does a KRaft controlled shutdown
(docs/operations.md): it heartbeats the controller with wantShutDown,
the controller moves its leaderships to another in-sync replica and
takes it out of every ISR, and answers shouldShutDown once the other
brokers have applied the change (their next heartbeats: one to two
broker.heartbeat.interval.ms, 2 s). Then the broker stops, stays down
rolling.down.ms, restarts clean, catches up and rejoins the ISRs before
the next broker's turn. The transaction and group coordinators run on
b1; when a broker that hosts them enters controlled shutdown they resign
and move to the next active broker (docs/operations.md, "Coordinator
migration"): b2, then b3, then b1.

What the client sees (seeds 1-200): the first produce to each moved
leader is answered NOT_LEADER_OR_FOLLOWER (3 in every run, one per
broker). From Kafka 3.7 on both sides the answer names the new leader
and its epoch (KIP-951's leader hint, "leader=b2 e=1" in the trace) and
the producer retries to it at once; with kafka.version (or
client.version or broker.version) 3.6 or older it asks for metadata and
retries to the new leader after retry.backoff.ms (docs/operations.md).
Its next request to each moved coordinator is answered NOT_COORDINATOR
(6 in every run, two per shutdown); it looks the coordinator up again
with FindCoordinator and goes on. The next transaction's first batches
can be refused while the previous commit completes (NOT_ENOUGH_REPLICAS,
the leaders' verification answering CONCURRENT_TRANSACTIONS: 1 to 27 per
run) and a batch behind a refused one gets OUT_OF_ORDER_SEQUENCE_NUMBER
(0 to 2); all are retried. The producer bumps no epoch itself; the
coordinator bumps it at every commit (transaction.version=2). A record's
latency, from the application's send to its acknowledgement, is about
10 ms outside the roll; at seed 1 it peaks at about 0.2 s at each
shutdown (197, 205 and 194 ms: the coordinators' move and the commit
that completes after it); the record answered NOT_LEADER_OR_FOLLOWER
when b3's leadership moves takes 12 ms (109 ms at kafka.version=3.6,
without the hint) (-latency-chart draws it against time, the shutdowns marked).
Nothing is lost or duplicated and no invariant fails
(TestRollingInvariants: 20 seeds, 200 with -long).`,
		ExpectOff: "nothing to show: transactions need idempotence",
		ExpectOn:  "every leadership moves, the client sees NOT_LEADER_OR_FOLLOWER and retries; no invariant fails",
		Defaults: []params.KV{{Key: "brokers", Value: "3"}, {Key: "partitions", Value: "3"}, {Key: "records", Value: "150"},
			{Key: "send.interval.ms", Value: "150"}, {Key: "batch.size", Value: "1"}, {Key: "min.insync.replicas", Value: "2"},
			{Key: "transactional.id", Value: "t1"}, {Key: "transaction.records", Value: "4"}, {Key: "app.mode", Value: "exactly-once"}},
		Extra: []params.Param{
			{Key: "rolling.gap.ms", Kind: params.Int, Default: "8000", Unit: "ms", Doc: "time between two brokers' shutdown requests", Min: 0, Max: 3_600_000},
			{Key: "rolling.down.ms", Kind: params.Int, Default: "1000", Unit: "ms", Doc: "how long each broker stays stopped after its controlled shutdown, before its clean restart", Min: 0, Max: 3_600_000},
			faultAtFixed("1000", "when b1 is asked to stop, plus up to one send.interval.ms of jitter"),
		},
		OffNote: "transactions need idempotence",
		build:   oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			c := v.Config()
			start := c.Extra.FaultAt + jitter(rng, 0, c.App.SendInterval)
			p := faults.Plan{Actions: faults.Rolling(nodes.Brokers, start, c.Extra.RollingGap, c.Extra.RollingDown)}
			return withNoise(rng, v, nodes, p)
		},
	}
}
