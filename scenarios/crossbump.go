package scenarios

import (
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(crossbump) }

func crossbump() *Scenario {
	return &Scenario{
		Name:    "crossbump",
		Summary: "an epoch bump for one partition's error resends another partition's possibly-written batch as new",
		Story: `One producer writes two partitions over one connection. On partition 0
a batch fails transiently (NOT_ENOUGH_REPLICAS) and the batches behind it
get OUT_OF_ORDER_SEQUENCE_NUMBER; meanwhile an acknowledgement for
partition 1 is lost, so a partition-1 batch is written but unacknowledged.
The Java client treats an OUT_OF_ORDER_SEQUENCE_NUMBER on a batch that is
not the head as "retry, do not bump", and renumbers only the partition it
bumps (KAFKA-12152). librdkafka, as every release up to v2.15 ships
(client.policy=librdkafka, or -bug Z13; librdkafka issue #4953), bumps the
epoch there ("skipped sequence numbers") and resets every partition's
sequences, so partition 1's written batch goes out again as epoch+1,
sequence 0, and is appended twice: with idempotence, INV-DUP fails in 117
of seeds 1-200. The fix proposed in librdkafka pull request #4972, still
unmerged, re-enqueues without the bump
(producer.whatif.librdkafka_no_skip_bump, a what-if): no duplicate.

Broker restarts among the faults (fault.count) break the promise in real
Kafka too: a restarted broker keeps each producer's newest batch only
(its snapshot holds one), so a retry of an older written batch gets
OUT_OF_ORDER_SEQUENCE_NUMBER; for the head batch the Java client bumps and
resends it at sequence 0, and INV-DUP fails without any -bug (a head batch,
unlike librdkafka's). A producer restart's new producer id is accepted at any
first sequence, so INV-SEQ and INV-ORDER can fail as in emptypart.

The brokers run the fix of the empty-partition hole
(broker.empty.partition.check=true: KAFKA-15591's fix, which came after
4.1, a what-if here), so that the hole every covered release has
(scenario emptypart) does not mix into the story; -set
broker.empty.partition.check=false shows both.`,
		ExpectOff: "duplicates and reordering from the same faults (INV-DUP or INV-ORDER fails)",
		ExpectOn:  "no duplicates; with client.policy=librdkafka (or -bug Z13), INV-DUP fails on the other partition",
		Defaults: []params.KV{{Key: "records", Value: "120"}, {Key: "partitions", Value: "2"}, {Key: "send.interval.ms", Value: "1"}, {Key: "batch.size", Value: "1"},
			{Key: "broker.transient_error", Value: "0.03"}, {Key: "net.response_loss", Value: "0.03"}, {Key: "request.timeout.ms", Value: "1000"}, {Key: "broker.empty.partition.check", Value: "true"}},
		OffShows: []string{"INV-DUP", "INV-ORDER"},
		Bugs:     []string{"Z13", "Z17", "KAFKA-14904"},
		build:    oneApp,
	}
}
