package scenarios

import (
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(emptypart) }

func emptypart() *Scenario {
	return &Scenario{
		Name:    "emptypart",
		Summary: "a never-written partition accepts any first sequence, so a later batch overtakes a retried one (KAFKA-15591)",
		Story: `The topic was just created. The producer sends batch A (sequence 0..16)
and, behind it, batch B (17..21). The partition is not ready for A and
answers NOT_LEADER_OR_FOLLOWER (retriable); B arrives when it is ready.
Every covered Kafka release (up to 4.1, the default) accepts an unknown
producer at any sequence, so B is appended first, and every retry of A
then gets OUT_OF_ORDER_SEQUENCE_NUMBER; A is not the head batch, so the
Java client never bumps and A fails at delivery.timeout.ms: the failure
shows with idempotence on. KAFKA-15591's fix, which came after 4.1
(apache/kafka pull request 23234), rejects B until A has landed: -set
broker.empty.partition.check=true shows it, a what-if here.`,
		ExpectOff: "B lands before A (INV-ORDER fails)",
		ExpectOn:  "INV-SEQ fails at every covered version: B lands before A and A's records fail at delivery.timeout.ms; with broker.empty.partition.check=true (the later fix), A lands, then B",
		Defaults: []params.KV{{Key: "records", Value: "22"}, {Key: "send.interval.ms", Value: "0"}, {Key: "batch.size", Value: "17"}, {Key: "linger.ms", Value: "5"},
			{Key: "partition.not_ready.batches", Value: "1"}, {Key: "net.latency.base", Value: "5ms"},
			{Key: "delivery.timeout.ms", Value: "30000"}, {Key: "request.timeout.ms", Value: "10000"}},
		OffShows: []string{"INV-ORDER"},
		OnShows:  []string{"INV-SEQ"},
		OnNote:   "every covered Kafka release (up to 4.1) has the empty-partition hole (KAFKA-15591, fixed later)",
		Bugs:     []string{"Z12"},
		build:    oneApp,
	}
}
