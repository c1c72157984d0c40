package scenarios

import (
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(inflight6) }

func inflight6() *Scenario {
	return &Scenario{
		Name:    "inflight6",
		Summary: "the sixth in-flight batch falls outside the broker's 5-batch window",
		Story: `Six requests are in flight (max.in.flight.requests.per.connection=6,
which Kafka refuses with idempotence; max.in.flight.above.five=true is the
what-if switch). All six are appended, but the first one's acknowledgement
is lost, which breaks the connection. When the first batch is retried the
broker's window holds only the 5 newer batches: the retry is neither a
cached duplicate nor the next sequence, so it gets
OUT_OF_ORDER_SEQUENCE_NUMBER. The Java client takes that for a real gap at
the head, bumps the epoch, renumbers and resends: everything unacknowledged
lands twice. With max.in.flight=5 the retry is still in the
window and is answered as a duplicate, whatever messages are lost or
delayed; two unclean broker restarts still duplicate, because the
rebuilt window keeps each producer's newest batch only (simulate -explore
with 2 crashes).

The story needs one copy of the partition (brokers=1, the default). With
replicas (-set brokers=3) an acks=all request is answered only once its
followers have the batch, and the broker reads a connection's next
request only after it answered the previous one (Kafka mutes the channel
meanwhile), so the six are never all appended when the first answer is
lost: the retry finds its batch in the window, and idempotence holds.`,
		ExpectOff: "duplicates (INV-DUP fails)",
		ExpectOn:  "duplicates too: the evicted retry is re-appended under a bumped epoch",
		Defaults: []params.KV{{Key: "records", Value: "30"}, {Key: "send.interval.ms", Value: "0"}, {Key: "batch.size", Value: "1"},
			{Key: "max.in.flight.requests.per.connection", Value: "6"}, {Key: "max.in.flight.above.five", Value: "true"},
			{Key: "net.response_loss", Value: "0.1"}, {Key: "request.timeout.ms", Value: "1000"}, {Key: "net.disconnect_notice", Value: "0"}},
		OffShows:   []string{"INV-DUP"},
		OnShows:    []string{"INV-DUP"},
		OnNote:     "Kafka's broker keeps 5 batches; a client with 6 in flight loses the dedup guarantee, which is why Kafka caps max.in.flight at 5 with idempotence",
		SingleCopy: "the broker's 5-batch window is filled by the in-flight batches of one leader; acks=all waits for followers and changes which batches are in flight",
		build:      oneApp,
	}
}
