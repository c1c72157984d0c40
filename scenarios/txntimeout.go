package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(txntimeout) }

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
Kafka 4.0 (kafka.version=4.0, or -bug K19367) bumps the epoch twice when
it fences the timed-out transaction (KAFKA-19367, fixed in 4.1): the
producer's EndTxn(ABORT) at the old epoch is then neither the current
epoch nor a retry's, and is fenced (LIVE-PROD's spurious fatal).
With the 0.11 defect (-bug Z05b) the abort keeps the epoch: the
producer's AddPartitionsToTxn starts a new transaction, its commit
succeeds, and the application believes records were committed that were
aborted or never joined the committed transaction (KAFKA-6119).
The -bug also turns KIP-890 verification off, as in the Kafka of the time.`,
		ExpectOff: "nothing to show: transactions need idempotence",
		ExpectOn:  "the producer is fenced, its transaction fails and its later records fail (LIVE-PROD's spurious fatal); with -bug Z05b, INV-LOSS fails; at kafka.version=4.1 (transaction version 2) the transaction is aborted and the producer carries on; at 4.0 (-bug K19367) the double bump fences it (LIVE-PROD)",
		Defaults: []params.KV{{Key: "kafka.version", Value: "3.9"}, {Key: "records", Value: "40"}, {Key: "partitions", Value: "2"}, {Key: "batch.size", Value: "1"}, {Key: "transactional.id", Value: "t1"},
			{Key: "transaction.records", Value: "10"}, {Key: "transaction.timeout.ms", Value: "5000"},
			{Key: "transaction.abort.timed.out.transaction.cleanup.interval.ms", Value: "1000"}},
		Extra: []params.Param{
			{Key: "pause.at", Kind: params.Duration, Default: "50ms", Doc: "when the producer's pause starts (jittered by up to 20ms): after the transaction's first record, before its second", Min: 0, Max: 3600e9},
			{Key: "pause.ms", Kind: params.Int, Default: "8000", Unit: "ms", Doc: "length of the pause (longer than transaction.timeout.ms)", Min: 0, Max: 3_600_000},
		},
		OffNote: "transactions need idempotence",
		OnShows: []string{"LIVE-PROD"},
		OnNote:  "a producer whose transaction timed out is fenced for good under the classic protocol (KIP-588's graceful recovery is only partly implemented), which the checker reports as a spurious fatal; transaction version 2 recovers from Kafka 4.1 (4.0's double bump fences it, KAFKA-19367)",
		Bugs:    []string{"Z05b", "K19367"},
		build:   oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			at := jitter(rng, v.Config().Extra.PauseAt, 20*time.Millisecond)
			p := faults.Plan{Actions: []faults.Timed{{At: at, Action: faults.Pause{Node: nodes.Clients[0], For: v.Config().Extra.Pause}}}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
