package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(restart) }

func restart() *Scenario {
	return &Scenario{
		Name:    "restart",
		Summary: "a producer restart without transactional.id gets a new producer id, so retries across it duplicate",
		Story: `The producer process crashes right after sending a batch that the broker
appends, before the acknowledgement arrives. The application reads its
input topic through a consumer and commits the consumer's offsets once a
record's send is acknowledged (at least once). Restarted, it reads again
from the committed offsets and so sends again every record whose
acknowledgement, or whose offset commit, it had not seen. The new
instance has no transactional.id, so InitProducerId
gives it a new producer id: the broker cannot tell the resent batch from
new data, with idempotence on or off. Idempotence holds
within one producer session only; transactions are Kafka's answer.`,
		ExpectOff: "duplicates after each restart (INV-DUP fails)",
		ExpectOn:  "duplicates too: the restarted instance has a new producer id",
		Defaults:  []params.KV{{Key: "records", Value: "40"}, {Key: "fault.producer.resend", Value: "true"}, {Key: "batch.size", Value: "1"}, {Key: "app.input", Value: "topic"}},
		Extra: []params.Param{
			{Key: "restart.count", Kind: params.Int, Default: "2", Unit: "restarts", Doc: "producer crashes, each followed by a restart", Min: 1, Max: 20},
			{Key: "restart.down.ms", Kind: params.Int, Default: "500", Unit: "ms", Doc: "time the producer stays down", Min: 0, Max: 3_600_000},
			faultAtAuto("when the producer first crashes, plus net.latency.base+net.latency.spread and up to one more net.latency.spread (while the last send's acknowledgement is on its way); the later crashes keep their distance of records/(restart.count+1) sends (-1: just after send records/(restart.count+1))"),
		},
		OffShows: []string{"INV-DUP"},
		OnShows:  []string{"INV-DUP"},
		OnNote:   "the broker deduplicates per producer id; a new instance without transactional.id has a new one (Kafka documents idempotence as per-session)",
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			// Just after a send, while its acknowledgement is on the way
			// back: base latency plus a little.
			lat := v.Config().Net.Latency.Base + v.Config().Net.Latency.Spread
			p := restarts(v, nodes, v.Config().Extra.RestartCount, func() time.Duration {
				return jitter(rng, lat, v.Config().Net.Latency.Spread)
			}, v.Config().Extra.RestartDown)
			return withNoise(rng, v, nodes, p)
		},
	}
}
