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
Up to Kafka 4.4 an unknown producer is accepted at any sequence, so B is
appended first, and every retry of A then gets OUT_OF_ORDER_SEQUENCE_NUMBER;
A is not the head batch, so the client never bumps and A fails at
delivery.timeout.ms (bug-zoo Z12). This is the behaviour of idemsim's
default, kafka.version=4.1, so the failure shows with idempotence on. Kafka
4.5 (-set kafka.version=4.5, or broker.version=4.5 for an upgrade of the
brokers alone; broker.empty.partition.check=true) rejects B until A has
landed; -bug Z12 turns the hole back on there.`,
		ExpectOff: "B lands before A (INV-ORDER fails)",
		ExpectOn:  "at kafka.version 4.1 (the default) INV-SEQ fails: B lands before A and A's records fail at delivery.timeout.ms; at 4.5, A lands, then B (with -bug Z12, INV-SEQ fails again)",
		Defaults: []params.KV{{Key: "records", Value: "22"}, {Key: "send.interval.ms", Value: "0"}, {Key: "batch.size", Value: "17"}, {Key: "linger.ms", Value: "5"},
			{Key: "partition.not_ready.batches", Value: "1"}, {Key: "net.latency.base", Value: "5ms"},
			{Key: "delivery.timeout.ms", Value: "30000"}, {Key: "request.timeout.ms", Value: "10000"}},
		OffShows: []string{"INV-ORDER"},
		OnShows:  []string{"INV-SEQ"},
		OnNote:   "Kafka before 4.5 has the empty-partition hole (KAFKA-15591); the default kafka.version is 4.1",
		Bugs:     []string{"Z12"},
		build:    oneApp,
	}
}
