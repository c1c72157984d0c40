package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(hanging) }

// hanging is one of the transaction protocol's ordering scenarios: a
// batch reaches its partition after its transaction was aborted
// (KAFKA-14053).
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
stays at its offset (LIVE-LSO, and INV-FENCE: a batch after its
transaction's end marker; KAFKA-14053). The read_committed consumer r1,
which reads both partitions from their leader (model/consumer), has read
everything up to that offset; from then on its fetches of partition 0
return nothing while the high watermark is past it, and it waits there
for good: LIVE-READ reports it once it has waited longer than
consumer.stuck.ms (3 s here), naming the open transaction that holds it.
Kafka 3.6's verification refuses it (the coordinator has moved the
producer to the next epoch: INVALID_PRODUCER_EPOCH).

Under transaction version 2 (4.0 and later; the default is 4.1) the held
batch was the third transaction's only one, so the coordinator never saw
that transaction: the producer's EndTxn(ABORT) at the current epoch e
meets CompleteCommit. Kafka 4.0 aborts it anyway (KAFKA-18464, fixed in
4.0.0): the epoch moves to e+1 and there is nothing to write. When the
held batch arrives, still at epoch e, the leader's implicit add to the
transaction is refused (the coordinator is at e+1) and the broker
rejects the batch with INVALID_PRODUCER_EPOCH: nothing hangs.

With idempotence, seeds 1-200: at 3.5, INV-FENCE, LIVE-LSO and
LIVE-READ fail in 200 of 200 runs; at 3.6, 4.0 and 4.1, no invariant fails
(docs/versions.md).

With random faults (fault.count=4, seeds 1-2000): transactions that time
out during a pause or a partition fence the producer (LIVE-PROD's
spurious fatal, 89 runs), and a pause or crash of the producer, the
coordinator or the leader holds a transaction open longer than
consumer.stuck.ms, so the consumer waits (LIVE-READ, 1293 runs). Before
the consumer joined the scenario, one run (seed 698) also showed
KAFKA-15591's hole (a restarted producer's first batch on a
never-written partition accepted at any sequence, as in emptypart:
INV-SEQ); the consumer's requests share the server links' random
draws, so the same seed now times the markers differently and no run
shows it.`,
		ExpectOff: "nothing to show: transactions need idempotence",
		ExpectOn:  "at 3.6 verification refuses the late batch; at 4.0 and 4.1 (the default) the producer's abort bumps the epoch and the leader's implicit add refuses the late batch; either way the last stable offset moves on; at kafka.version=3.5 it is appended after its abort and LIVE-LSO fails (and INV-FENCE: a batch after its transaction's end marker), and the read_committed consumer waits behind it for good (LIVE-READ)",
		Defaults: []params.KV{{Key: "records", Value: "9"}, {Key: "partitions", Value: "2"}, {Key: "batch.size", Value: "1"}, {Key: "transactional.id", Value: "t1"},
			{Key: "transaction.records", Value: "4"}, {Key: "request.timeout.ms", Value: "1000"}, {Key: "delivery.timeout.ms", Value: "3000"},
			{Key: "isolation.level", Value: "read_committed"}, {Key: "consumer.stuck.ms", Value: "3000"}},
		Extra: append([]params.Param{
			{Key: "late.ms", Kind: params.Int, Default: "6000", Unit: "ms", Doc: "how long the last record's produce request is held (plus up to 500ms of jitter); longer than delivery.timeout.ms and the abort that follows it", Min: 0, Max: 3_600_000},
		}, params.ConsumerParamList(true)...),
		OffNote:    "transactions need idempotence",
		Bugs:       []string{"Z19"},
		SingleCopy: "the late batch and the one-way cut are timed against the single leader's log and the abort's markers",
		build:      oneApp,
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
