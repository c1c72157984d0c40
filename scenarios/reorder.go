package scenarios

import (
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(reorder) }

func reorder() *Scenario {
	return &Scenario{
		Name:    "reorder",
		Summary: "with several requests in flight, a batch that fails transiently is overtaken by later ones",
		Story: `The producer keeps up to 5 requests in flight. The broker answers one
batch NOT_ENOUGH_REPLICAS (retriable; nothing appended) while the batches
behind it on the same connection are appended. Without idempotence the
failed batch is retried and lands after them: the partition's order is
not the order sent. With idempotence the broker answers the
later batches OUT_OF_ORDER_SEQUENCE_NUMBER because of the gap; they are
not the head batch, so the client retries them in order without an epoch
bump, and the log keeps the order sent.

Restarts break it in real Kafka (simulate -explore, 2 faults): after two
unclean broker restarts the window keeps each producer's newest batch
only, and a retry of an older batch is bumped and appended again
(INV-DUP); a restarted producer's new producer id, unknown to the
partition, can have batch 1 appended before a failed batch 0 (INV-SEQ),
as in emptypart.

The brokers run the fix of the empty-partition hole
(broker.empty.partition.check=true: KAFKA-15591's fix, which came after
4.1, a what-if here): without it a failed first batch on the new
partition can be overtaken through the hole every covered release has
(scenario emptypart), which would mix that story into this one; -set
broker.empty.partition.check=false shows both.`,
		ExpectOff: "records out of order (INV-ORDER fails)",
		ExpectOn:  "retriable OUT_OF_ORDER_SEQUENCE_NUMBER errors, no reordering, no duplicates",
		Defaults: []params.KV{{Key: "records", Value: "40"}, {Key: "send.interval.ms", Value: "1"}, {Key: "batch.size", Value: "1"},
			{Key: "broker.transient_error", Value: "0.05"}, {Key: "net.disconnect_notice", Value: "0"}, {Key: "broker.empty.partition.check", Value: "true"}},
		OffShows: []string{"INV-ORDER"},
		build:    oneApp,
	}
}
