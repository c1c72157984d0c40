package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(lsolag) }

// lsolag: a read_committed consumer waits behind a transaction that its
// producer leaves open, until the coordinator aborts it at
// transaction.timeout.ms.
func lsolag() *Scenario {
	return &Scenario{
		Name:    "lsolag",
		Summary: "a read_committed consumer waits behind an open transaction until transaction.timeout.ms aborts it",
		Story: `A transactional producer writes transactions of 10 records to one
partition, one record every 100ms, and a read_committed consumer, r1,
reads the partition from its leader (model/consumer, the classic
KafkaConsumer). Right after the first record of the second transaction
is acknowledged, the producer stalls in a pause longer than
transaction.timeout.ms. The transaction stays open: the last stable
offset stays at its first record, and the consumer, which reads only
below it, returns nothing while the high watermark is past it. Its lag
behind the log is the transaction's age: it ends when the coordinator
aborts the timed-out transaction (transaction.timeout.ms, checked every
transaction.abort.timed.out.transaction.cleanup.interval.ms), writes the
ABORT marker and the last stable offset moves past it. The consumer
then skips the aborted record with the fetch response's aborted
transactions, as CompletedFetch does, and goes on. Under transaction
version 2 (the default, 4.1) the producer recovers and its later
transactions commit; at kafka.version=3.9 it is fenced for good when it
wakes (LIVE-PROD), and nothing more is written.

LIVE-READ reports a read_committed consumer that waits at a last stable
offset that does not move for longer than consumer.stuck.ms (10 s),
naming the transaction that holds it: with the defaults the wait is
about transaction.timeout.ms (5 s) plus the cleanup interval, so no
invariant fails; -set transaction.timeout.ms=20000 -set pause.ms=25000
makes it fail. The consumer never returns an aborted record or one at
or above the last stable offset (INV-READ).`,
		ExpectOff: "nothing to show: transactions need idempotence",
		ExpectOn:  "the consumer waits about transaction.timeout.ms behind the open transaction, then skips its aborted record; no invariant fails (with transaction.timeout.ms above consumer.stuck.ms, LIVE-READ fails)",
		Defaults: []params.KV{{Key: "records", Value: "40"}, {Key: "batch.size", Value: "1"}, {Key: "transactional.id", Value: "t1"},
			{Key: "transaction.records", Value: "10"}, {Key: "transaction.timeout.ms", Value: "5000"},
			{Key: "transaction.abort.timed.out.transaction.cleanup.interval.ms", Value: "1000"},
			{Key: "isolation.level", Value: "read_committed"}},
		Extra: append([]params.Param{
			{Key: "pause.at", Kind: params.Duration, Default: "1050ms", Doc: "when the producer's pause starts (jittered by up to 20ms): after the second transaction's first record, before its second", Min: 0, Max: 3600e9},
			{Key: "pause.ms", Kind: params.Int, Default: "8000", Unit: "ms", Doc: "length of the pause (longer than transaction.timeout.ms)", Min: 0, Max: 3_600_000},
		}, params.ConsumerParamList(true)...),
		OffNote: "transactions need idempotence",
		build:   oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			at := jitter(rng, v.Config().Extra.PauseAt, 20*time.Millisecond)
			p := faults.Plan{Actions: []faults.Timed{{At: at, Action: faults.Pause{Node: nodes.Clients[0], For: v.Config().Extra.Pause}}}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
