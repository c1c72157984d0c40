package scenarios

import (
	"math/rand/v2"

	"github.com/idemsim/idemsim/faults"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(expiry) }

func expiry() *Scenario {
	return &Scenario{
		Name:    "expiry",
		Summary: "producer state expires while a retry is pending: the retry is appended again (KIP-360's hole)",
		Story: `The producer sends a batch; the broker appends it, but the acknowledgement
is lost. The application then goes idle. Before the producer's request
times out and it retries, the producer has been idle longer than
producer.id.expiration.ms and the broker's periodic check removes its
state. The retry finds no state; an unknown producer is accepted at any
sequence (Kafka 2.5+), so the batch is appended a second time (the
hazard KIP-360 describes). When the producer resumes after the idle
period, its next batches are accepted as the first of an unknown producer.`,
		ExpectOff: "the retried batch lands twice (INV-DUP fails)",
		ExpectOn:  "the retried batch lands twice too (INV-DUP and INV-SEQ fail): a documented hole of KIP-360",
		Defaults: []params.KV{{Key: "records", Value: "20"}, {Key: "batch.size", Value: "1"}, {Key: "producer.id.expiration.ms", Value: "10000"},
			{Key: "producer.id.expiration.check.interval.ms", Value: "1000"}, {Key: "net.disconnect_notice", Value: "0"},
			{Key: "app.idle.after", Value: "10"}, {Key: "app.idle.ms", Value: "60000"}},

		OffShows: []string{"INV-DUP"},
		OnShows:  []string{"INV-DUP", "INV-SEQ"},
		OnNote:   "KIP-360 keeps state for producer.id.expiration.ms only; a retry that arrives after expiry is accepted as new data",
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			// Lose the acknowledgement of the last request before the
			// idle period (requests on p1>b1 count from 1, one per record
			// with batch.size=1).
			p := faults.Plan{Actions: []faults.Timed{{At: 0, Action: faults.Drop{Dir: simnet.Response, N: v.Config().App.IdleAfter,
				From: nodes.Clients[0], To: nodes.Servers[0]}}}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
