package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

// The transaction protocol's ordering scenarios (transactions.md Part 7):
// a request of one transaction that reaches a server after the next
// transaction began (txnlate, KAFKA-17754), and a batch that reaches its
// partition after its transaction was aborted (hanging, KAFKA-14053).

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
commits that transaction early, with the records sent so far (bug-zoo
Z20, Jepsen's Bufstream analysis; transactions.md X40). The client
still believes it is open: its next batch to a partition whose marker
is written is refused TRANSACTION_ABORTABLE (KIP-890 verification), it
aborts, and the abort meets a completed commit: INVALID_TXN_STATE,
fatal. Records of a transaction the client was told failed are
readable (aborted read) next to records of it that are not (a torn
transaction): INV-TXN. When the late EndTxn arrives between two
transactions it is a harmless retry.

Under transaction version 2 (Kafka 4.0+, the default 4.1) every
EndTxn bumps the epoch, so the late EndTxn carries an old epoch and is
answered PRODUCER_FENCED without effect (X43); nothing breaks.`,
		ExpectOff: "nothing to show: transactions need idempotence",
		ExpectOn:  "at 4.1 (transaction version 2) the late EndTxn is fenced and every invariant holds; at kafka.version=3.9 it commits the running transaction early: INV-TXN (aborted read, torn transaction) and the producer's fatal INVALID_TXN_STATE (LIVE-PROD)",
		Defaults: []params.KV{{Key: "records", Value: "40"}, {Key: "partitions", Value: "2"}, {Key: "batch.size", Value: "1"}, {Key: "transactional.id", Value: "t1"},
			{Key: "transaction.records", Value: "4"}, {Key: "request.timeout.ms", Value: "1000"}},
		Extra: []params.Param{
			{Key: "late.txn", Kind: params.Int, Default: "2", Unit: "transactions", Doc: "whose EndTxn is held: the late.txn-th EndTxn request the producer sends", Min: 1, Max: 1000},
			{Key: "late.ms", Kind: params.Int, Default: "2000", Unit: "ms", Doc: "how long it is held (plus up to 1000ms of jitter); longer than request.timeout.ms, so that the client sends it again", Min: 0, Max: 3_600_000},
		},
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

func hanging() *Scenario {
	return &Scenario{
		Name:    "hanging",
		Summary: "a batch that arrives after its transaction was aborted opens a transaction no coordinator will end: the last stable offset hangs",
		Story: `A transactional producer sends 9 records over two partitions, in
transactions of 4, one record every 100ms; the last record, alone in the
third transaction, goes to partition 0. Its produce request is held in
the network (plan action "late") while a one-way partition keeps the
producer's retries from the broker. At delivery.timeout.ms the batch
expires unresolved: the producer aborts the transaction (EndTxn(ABORT);
the coordinator writes the ABORT markers) and bumps its epoch. After the
partition heals, the held request arrives.

Kafka 3.5 (kafka.version=3.5: no KIP-890 verification, the classic
protocol) appends it: the ABORT marker kept the epoch, so the batch's
sequence continues the partition's, and it opens a transaction that no
coordinator knows. Nothing will ever end it: the last stable offset
stays at its offset, and read_committed consumers stall (LIVE-LSO;
bug-zoo Z19, transactions.md X45 H1; KAFKA-14053). Kafka 3.6's
verification refuses it (the coordinator has moved the producer to the
next epoch: INVALID_PRODUCER_EPOCH), and under transaction version 2
(4.0+, the default 4.1) the batch carries an epoch the coordinator has
moved past, and the leader's implicit add refuses it too.

Under transaction version 2 the held batch was the third transaction's
only one, so the coordinator never saw that transaction: the producer's
EndTxn(ABORT) at the current epoch meets CompleteCommit and is answered
PRODUCER_FENCED (transactions.md X25, the 4.0 snapshot's rule), a fatal
error with no newer instance (LIVE-PROD's spurious fatal). The late batch
then reaches a coordinator that adds its partition (it is at the current
epoch): the transaction it opens is one the coordinator holds, and its
timeout ends it, so the last stable offset moves on.`,
		ExpectOff: "nothing to show: transactions need idempotence",
		ExpectOn:  "at 3.6 the late batch is refused; at 4.1 (the default) the producer's abort is fenced (LIVE-PROD) and the late batch joins a transaction the coordinator holds; either way the last stable offset moves on; at kafka.version=3.5 it is appended after its abort and LIVE-LSO fails (and INV-FENCE: a batch after its transaction's end marker)",
		Defaults: []params.KV{{Key: "records", Value: "9"}, {Key: "partitions", Value: "2"}, {Key: "batch.size", Value: "1"}, {Key: "transactional.id", Value: "t1"},
			{Key: "transaction.records", Value: "4"}, {Key: "request.timeout.ms", Value: "1000"}, {Key: "delivery.timeout.ms", Value: "3000"}},
		Extra: []params.Param{
			{Key: "late.ms", Kind: params.Int, Default: "6000", Unit: "ms", Doc: "how long the last record's produce request is held (plus up to 500ms of jitter); longer than delivery.timeout.ms and the abort that follows it", Min: 0, Max: 3_600_000},
		},
		OffNote: "transactions need idempotence",
		Bugs:    []string{"Z19"},
		build:   oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			c := v.Config()
			last := c.App.Records - 1
			sendAt := time.Duration(last) * c.App.SendInterval
			d := jitter(rng, c.Extra.LateFor, 500*time.Millisecond)
			broker := nodes.Brokers[0]
			// The last record is the records-th produce request (one
			// record per request); the cut starts right after it is sent
			// and heals before it arrives.
			p := faults.Plan{Actions: []faults.Timed{
				{At: 0, Action: faults.Late{Type: "Produce", N: c.App.Records, From: nodes.Clients[0], To: broker, For: d}},
				{At: sendAt + 20*time.Millisecond, Action: faults.CutOneWay{A: []string{nodes.Clients[0]}, B: []string{broker}}},
				{At: sendAt + d - 200*time.Millisecond, Action: faults.HealOneWay{A: []string{nodes.Clients[0]}, B: []string{broker}}},
			}}
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
