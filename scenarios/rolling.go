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
commit the input position) sending a record every 50 ms. An operator
restarts every broker in turn, as for an upgrade: b1 is asked to stop at
fault.at.ms, b2 rolling.gap.ms later, b3 after another gap. Each does a
KRaft controlled shutdown (docs/operations.md): it heartbeats the
controller with wantShutDown, the controller moves its leaderships to
another in-sync replica and takes it out of every ISR, and answers
shouldShutDown once the other brokers have applied the change (their
next heartbeats, up to broker.heartbeat.interval.ms = 2 s later). Then
the broker stops, stays down rolling.down.ms and restarts clean, catches
up and rejoins the ISRs. The transaction coordinator runs on the
__transaction_state leader and moves with it when its host stops.

What the client sees: a produce in flight to a moving leader, or sent
before the producer learned of the move, is answered
NOT_LEADER_OR_FOLLOWER (every run has some; the counts' errors line);
the producer asks for metadata and retries to the new leader, which
deduplicates a retry it already has. When the coordinator's host stops,
the EndTxn or AddPartitions in flight breaks off and the producer finds
the coordinator on the new leader; a transaction the stop interrupted
may be aborted and its input read again (the application's epoch bumps).
The record latency rises from tens of milliseconds to a retry backoff
and a metadata round trip at each move, and to seconds when the
coordinator moves (-latency-chart draws it against time, the shutdowns
and restarts marked). No invariant fails (TestRollingInvariants, 20
seeds, 200 with -long).`,
		ExpectOff: "nothing to show: transactions need idempotence",
		ExpectOn:  "every leadership moves, the client sees NOT_LEADER_OR_FOLLOWER and retries; no invariant fails",
		Defaults: []params.KV{{Key: "brokers", Value: "3"}, {Key: "partitions", Value: "3"}, {Key: "records", Value: "600"},
			{Key: "send.interval.ms", Value: "50"}, {Key: "batch.size", Value: "1"}, {Key: "min.insync.replicas", Value: "2"},
			{Key: "transactional.id", Value: "t1"}, {Key: "transaction.records", Value: "4"}, {Key: "app.mode", Value: "exactly-once"}},
		Extra: []params.Param{
			{Key: "rolling.gap.ms", Kind: params.Int, Default: "10000", Unit: "ms", Doc: "time between two brokers' shutdown requests", Min: 0, Max: 3_600_000},
			{Key: "rolling.down.ms", Kind: params.Int, Default: "3000", Unit: "ms", Doc: "how long each broker stays stopped after its controlled shutdown, before its clean restart", Min: 0, Max: 3_600_000},
			faultAtFixed("2000", "when b1 is asked to stop, plus up to one send.interval.ms of jitter"),
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
