package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(statelost) }

func statelost() *Scenario {
	return &Scenario{
		Name:    "statelost",
		Summary: "the broker restarts while a retry is pending: rebuilt state deduplicates it, lost state does not",
		Story: `The broker appends a batch and its acknowledgement is lost. Before the
producer retries, the broker crashes and restarts. Kafka rebuilds the
producer state from its snapshot and the log (broker.restart.rebuild=log),
so the retry is recognised as a duplicate of the newest batch. A broker
that comes back without producer state (broker.restart.rebuild=none,
a what-if of KAFKA-5435 and KAFKA-9892) accepts the retry as the first batch of an unknown producer
and appends it again.

With several batches written but unacknowledged at the restart (fault
noise, fault.count), real Kafka duplicates too: the rebuilt window holds
the newest batch only, the head batch's retry gets
OUT_OF_ORDER_SEQUENCE_NUMBER, and the Java client bumps the epoch and
appends the older batches again (INV-DUP). With broker.transient_error, a
restarted producer's new producer id, unknown to the partition, can have
batch 1 appended before a failed batch 0 (INV-SEQ), as in emptypart.`,
		ExpectOff: "the retried batch lands twice (INV-DUP fails)",
		ExpectOn:  "the retry is deduplicated after the restart; INV-STATE holds",
		Defaults:  []params.KV{{Key: "records", Value: "20"}, {Key: "send.interval.ms", Value: "200"}, {Key: "batch.size", Value: "1"}, {Key: "request.timeout.ms", Value: "3000"}, {Key: "net.disconnect_notice", Value: "0"}},
		Extra: []params.Param{
			{Key: "restart.clean", Kind: params.Bool, Default: "true", Doc: "the broker shuts down cleanly (snapshot at the log end) rather than crashing"},
			{Key: "restart.down.ms", Kind: params.Int, Default: "500", Unit: "ms", Doc: "time the broker stays down", Min: 0, Max: 3_600_000},
		},
		OffShows: []string{"INV-DUP"},
		Bugs:     []string{"Z08"},
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			k := 1 + rng.Int64N(max(1, v.Config().App.Records-2))
			iv := v.Config().App.SendInterval
			crash := time.Duration(k)*iv - iv/2 + jitter(rng, 0, iv/4)
			down := v.Config().Extra.RestartDown
			p := faults.Plan{Actions: []faults.Timed{
				{At: 0, Action: faults.Drop{Dir: simnet.Response, N: k, From: nodes.Clients[0], To: nodes.Servers[0]}},
				{At: crash + iv, Action: faults.Crash{Node: nodes.Servers[0]}},
				{At: crash + iv + down, Action: faults.Restart{Node: nodes.Servers[0], Clean: v.Config().Extra.RestartClean}},
			}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
