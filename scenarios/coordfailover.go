package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(coordfailover) }

// coordfailover is one of the replication scenarios (issue #14, docs/replication.md):
// three brokers, three copies of the partition, a controller.
func coordfailover() *Scenario {
	return &Scenario{
		Name:    "coordfailover",
		Summary: "the transaction coordinator's broker dies mid-commit: the coordinator on the new __transaction_state leader completes the commit",
		Story: `Three brokers; the transaction coordinator runs on b1, the leader of the
__transaction_state partition (docs/replication.md), and b1 also leads
partition 0. A transactional producer commits a transaction of 4 records
over two partitions every 400ms; the coordinator's markers take 40ms to
reach the leaders. b1 crashes at a random point of a transaction, often
while a commit's markers are on their way (PrepareCommit written, the
EndTxn answered or not). The coordinator goes down with it. After
broker.session.timeout.ms the controller fences b1 and elects new leaders:
for partition 0, and for __transaction_state, whose new leader b2 loads
the log under coordinator epoch + 1, sends the markers of every
PrepareCommit again and completes it
(TransactionCoordinator.onElection). The producer, which lost its
connection to the coordinator, looks it up again (FindCoordinator); a
request it sent to b1's coordinator after the move is answered
NOT_COORDINATOR (docs/operations.md, "Coordinator migration"). It
retries its EndTxn (CONCURRENT_TRANSACTIONS until the commit completes,
then NONE) and goes on. A marker the old coordinator
had sent and that arrives after the new one's is refused
TRANSACTION_COORDINATOR_FENCED (the marker carries the old
coordinator epoch; ProducerAppendInfo.checkCoordinatorEpoch). Every transaction the producer was
told committed is readable exactly once (INV-TXN), nothing acknowledged
is lost (INV-LOSS), and the last stable offset moves on (LIVE-LSO).

With random faults (fault.count), a transaction can time out while the
producer sends to a stale leader or is cut off; the coordinator's abort
fences its epoch and the producer's EndTxn(COMMIT) at that epoch is
fatal, as the Java client's EndTxnHandler takes PRODUCER_FENCED and
INVALID_TXN_STATE: LIVE-PROD's spurious fatal (3 of seeds 1-2000 with
fault.count=4).`,
		ExpectOff: "nothing to show: transactions need idempotence",
		ExpectOn:  "the commit in flight completes on the new coordinator; no invariant fails",
		Defaults: []params.KV{{Key: "brokers", Value: "3"}, {Key: "partitions", Value: "2"}, {Key: "records", Value: "40"}, {Key: "batch.size", Value: "1"},
			{Key: "transactional.id", Value: "t1"}, {Key: "transaction.records", Value: "4"}, {Key: "min.insync.replicas", Value: "2"},
			{Key: "net.link.latency", Value: "c1>b1 constant base=40ms; c1>b2 constant base=40ms; c1>b3 constant base=40ms"}},
		Extra: []params.Param{
			{Key: "leader.down.ms", Kind: params.Int, Default: "15000", Unit: "ms", Doc: "time the coordinator's broker stays down", Min: 0, Max: 3_600_000},
			faultAtFixed("800", "when the coordinator's broker crashes, plus up to 2s of jitter (the default puts it at a random point of the third to seventh transaction)"),
		},
		OffNote: "transactions need idempotence",
		build:   oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			c := v.Config()
			// At fault.at.ms's default, a random point of the third to
			// seventh transaction.
			crash := c.Extra.FaultAt + jitter(rng, 0, 2*time.Second)
			p := faults.Plan{Actions: []faults.Timed{
				{At: crash, Action: faults.Crash{Node: nodes.Brokers[0]}},
				{At: crash + c.Extra.LeaderDown, Action: faults.Restart{Node: nodes.Brokers[0]}},
			}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
