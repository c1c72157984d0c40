package scenarios

import (
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(wrap) }

func wrap() *Scenario {
	return &Scenario{
		Name:    "wrap",
		Summary: "sequence numbers wrap around (a narrow sequence space reaches the wrap quickly)",
		Story: `With sequence.bits=8 the sequence space is 0..255, so the producer wraps
every 256 records, and batches of 7 records straddle the wrap (for
example 252..2). The broker treats 255 -> 0 as contiguous
(ProducerAppendInfo.inSequence) and caches straddling batches normally,
so a retry across the wrap is still recognised. Acknowledgements are lost
now and then, so duplicates show without idempotence.

The Java client (client.policy=java) does its sequence arithmetic in plain
int (TransactionManager.isNextSequence, TxnPartitionEntry): past the wrap
its lastAckedSequence sticks until the next epoch bump, and when batches on
both sides of the wrap must be retried, the one past it (the lower int)
goes first. The broker answers OUT_OF_ORDER_SEQUENCE_NUMBER, the client
retries it without a bump until delivery.timeout.ms, and then the stalled
records fail and the epoch is bumped (seed 130). Nothing is duplicated or
lost; -set client.policy=librdkafka wraps.

The sequence space must be wider than the window spans: with
sequence.bits=3 (8 sequence numbers) the window can hold a batch whose
range a batch one wrap later repeats, and the broker answers the new
batch as a duplicate of the old one: acknowledged but not written
(INV-DEDUP, INV-LOSS; simulate -explore finds it with 2 pauses of the
producer, which make batches of 4). Kafka's 31 bits never wrap within a
window.`,
		ExpectOff: "duplicates from lost acknowledgements (INV-DUP fails)",
		ExpectOn:  "no duplicates or losses at the wrap; the Java client's int arithmetic can stall a retry across it until delivery.timeout.ms (records fail, the epoch is bumped)",
		Defaults: []params.KV{{Key: "records", Value: "600"}, {Key: "send.interval.ms", Value: "2"}, {Key: "batch.size", Value: "7"}, {Key: "linger.ms", Value: "20"},
			{Key: "sequence.bits", Value: "8"}, {Key: "net.response_loss", Value: "0.02"}, {Key: "request.timeout.ms", Value: "1000"}},
		OffShows: []string{"INV-DUP"},
		build:    oneApp,
	}
}
