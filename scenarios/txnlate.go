package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(txnlate) }

// txnlate is one of the transaction protocol's ordering scenarios: a
// request of one transaction reaches a server after the next transaction
// began (KAFKA-17754).
func txnlate() *Scenario {
	return &Scenario{
		Name:    "txnlate",
		Summary: "a delayed EndTxn commits the next transaction under the classic protocol (KAFKA-17754); transaction version 2 fences it",
		Story: `A transactional producer runs transactions of 4 records over two
partitions, one record every 100ms. The EndTxn(COMMIT) of its transaction
late.txn is held in the network (a TCP segment retransmitted after a
blip, plan action "late"): the client times the request out
(request.timeout.ms), reconnects and sends EndTxn again, which commits
the transaction, and the application goes on with the next one. The
first EndTxn then reaches the coordinator, which reads it although its
connection is gone.

With the classic protocol (kafka.version 3.x, or transaction.version=0)
consecutive transactions share the producer id and epoch, so the stale
EndTxn is indistinguishable from one of the running transaction: it
commits that transaction early, with the records sent so far
(KAFKA-17754, from Jepsen's Bufstream analysis). The client
still believes it is open: its next batch to a partition whose marker
is written is refused TRANSACTION_ABORTABLE (KIP-890 verification), it
aborts, and the abort meets a completed commit: INVALID_TXN_STATE,
fatal. Records of a transaction the client was told failed are
readable (aborted read) next to records of it that are not (a torn
transaction): INV-TXN. When the late EndTxn arrives between two
transactions it is a harmless retry.

Under transaction version 2 (Kafka 4.0+, the default 4.1) every
EndTxn bumps the epoch, so the late EndTxn carries an old epoch and is
answered PRODUCER_FENCED without effect; nothing breaks. That holds for
the Java client from 4.0 and for franz-go (which opts into transaction
version 2 whenever the cluster finalizes it, since v1.19.2); librdkafka
2.2.0 stays on the classic protocol against a 4.1 cluster, so with
client.policy=librdkafka INV-TXN fails in 71% of seeds 1-500, and
LIVE-PROD in 61%.`,
		ExpectOff: "nothing to show: transactions need idempotence",
		ExpectOn:  "at 4.1 (transaction version 2) the late EndTxn is fenced and every invariant holds; at kafka.version=3.9 it commits the running transaction early: INV-TXN (aborted read, torn transaction) and the producer's fatal INVALID_TXN_STATE (LIVE-PROD)",
		Defaults: []params.KV{{Key: "records", Value: "40"}, {Key: "partitions", Value: "2"}, {Key: "batch.size", Value: "1"}, {Key: "transactional.id", Value: "t1"},
			{Key: "transaction.records", Value: "4"}, {Key: "request.timeout.ms", Value: "1000"}},
		Extra: append([]params.Param{
			{Key: "late.txn", Kind: params.Int, Default: "2", Unit: "transactions", Doc: "whose EndTxn is held: the late.txn-th EndTxn request the producer sends", Min: 1, Max: 1000},
			{Key: "late.ms", Kind: params.Int, Default: "2000", Unit: "ms", Doc: "how long it is held (plus up to 1000ms of jitter); longer than request.timeout.ms, so that the client sends it again", Min: 0, Max: 3_600_000},
		}, params.ConsumerParamList(false)...),
		OffNote: "transactions need idempotence",
		Bugs:    []string{"Z20"},
		build:   oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			x := v.Config().Extra
			d := jitter(rng, x.LateFor, time.Second)
			p := faults.Plan{Actions: []faults.Timed{{Action: faults.Late{Type: "EndTxn", N: x.LateTxn, From: nodes.Clients[0], To: coordinatorOf(nodes), For: d}}}}
			return withNoise(rng, v, nodes, p)
		},
	}
}

// coordinatorOf names the transaction coordinator among nodes' servers:
// the first server that is not a broker.
func coordinatorOf(nodes faults.Nodes) string {
	for _, s := range nodes.Servers {
		isBroker := false
		for _, b := range nodes.Brokers {
			isBroker = isBroker || b == s
		}
		if !isBroker {
			return s
		}
	}
	return nodes.Servers[len(nodes.Servers)-1]
}
