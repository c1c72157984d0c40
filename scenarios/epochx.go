package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(epochx) }

func epochx() *Scenario {
	return &Scenario{
		Name:    "epochx",
		Summary: "epoch exhaustion: repeated restarts with a transactional.id rotate the producer id",
		Story: `The producer has a transactional.id and is restarted again and again; each
new instance's InitProducerId bumps the epoch. With epoch.bits=4 epochs run
0..7 and the coordinator counts an epoch as exhausted at 6: the next
InitProducerId allocates a new producer id at epoch 0
(TransactionMetadata.isEpochExhausted). Every restart happens after the
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
			faultAtAuto("when the producer first crashes, plus half a send.interval.ms and up to a tenth of one more; the later crashes keep their distance of records/(restart.count+1) sends (-1: after send records/(restart.count+1))"),
		},
		OffNote: "epochs exist only with idempotence",
		Bugs:    []string{"Z10"},
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
