package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(coordmove) }

// coordmove shows the coordinators' migration (docs/operations.md,
// "Coordinator migration"): the broker that hosts them stops by
// controlled shutdown while an exactly-once application commits.
func coordmove() *Scenario {
	return &Scenario{
		Name:    "coordmove",
		Summary: "the coordinators' broker is shut down mid-transaction: the old coordinator answers NOT_COORDINATOR, the new one COORDINATOR_LOAD_IN_PROGRESS while it loads, the client finds it and the transactions complete",
		Story: `Three brokers, two partitions with three copies each,
min.insync.replicas=2, and an exactly-once application
(app.mode=exactly-once: transactions of 4 records that commit the input
position). The transaction coordinator c1 runs on b1, the leader of
__transaction_state, and so does the group coordinator g1 (the leader of
__consumer_offsets). The producer found both with FindCoordinator
(TransactionManager.lookupCoordinator), and addresses b1.

At fault.at.ms (plus up to one transaction's time) the operator stops b1
(a "shutdown b1" line, docs/plans.md): in its controlled shutdown the
controller moves its leaderships, those of __transaction_state and
__consumer_offsets among them, to b2. The old coordinators resign
(TransactionCoordinator.onResignation: their requests get NOT_COORDINATOR)
and the new ones load the logs for coordinator.load.ms, 500 ms here
(TransactionStateManager.loadTransactionsForTxnTopicPartition: meanwhile
COORDINATOR_LOAD_IN_PROGRESS). The producer's next request to the old
host is answered NOT_COORDINATOR; it looks the coordinator up again, a
broker answers b2, and its requests get COORDINATOR_LOAD_IN_PROGRESS
until the load is over, each retried after retry.backoff.ms (seeds
1-200: NOT_COORDINATOR twice in every run, once from each coordinator;
COORDINATOR_LOAD_IN_PROGRESS 504 times, in 198 runs). The new
transaction coordinator reloads the log under coordinator epoch + 1 and
completes a commit the old one had prepared. b1 restarts clean after
leader.down.ms; the coordinators stay on b2.

With coordinator.load.ms=0 the new coordinators serve at once, and the
client sees NOT_COORDINATOR only. A plan that partitions b1 from the
producer and the controller instead (partition b1|p1,n1) moves the
coordinators when the controller fences b1, after
broker.session.timeout.ms; the producer's requests to c1 are cut with b1
until then (TestCoordMoveInvariants runs both). Nothing is lost or
duplicated and no invariant fails (20 seeds, 200 with -long).`,
		ExpectOff: "nothing to show: transactions need idempotence",
		ExpectOn:  "NOT_COORDINATOR, then COORDINATOR_LOAD_IN_PROGRESS, then the transactions complete on b2; no invariant fails",
		Defaults: []params.KV{{Key: "brokers", Value: "3"}, {Key: "partitions", Value: "2"}, {Key: "records", Value: "40"}, {Key: "batch.size", Value: "1"},
			{Key: "send.interval.ms", Value: "100"}, {Key: "min.insync.replicas", Value: "2"},
			{Key: "transactional.id", Value: "t1"}, {Key: "transaction.records", Value: "4"}, {Key: "app.mode", Value: "exactly-once"},
			{Key: "coordinator.load.ms", Value: "500"}},
		Extra: []params.Param{
			{Key: "leader.down.ms", Kind: params.Int, Default: "1000", Unit: "ms", Doc: "how long b1 stays stopped after its controlled shutdown, before its clean restart", Min: 0, Max: 3_600_000},
			faultAtFixed("1000", "when b1 is asked to stop, plus up to 400ms of jitter (one transaction's time)"),
		},
		OffNote: "transactions need idempotence",
		build:   oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			c := v.Config()
			at := c.Extra.FaultAt + jitter(rng, 0, 400*time.Millisecond)
			p := faults.Plan{Actions: []faults.Timed{{At: at, Action: faults.Shutdown{Node: nodes.Brokers[0], Down: c.Extra.LeaderDown}}}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
