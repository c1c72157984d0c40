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
			faultAtAuto("when the broker goes down, plus up to send.interval.ms/4 of jitter; the acknowledgement lost before it is the last send's at least 1.5 send intervals earlier (the first send's at the earliest, the last send's at the latest) (-1: 1.5 intervals after a send the seed picks, from the second to the one before last)"),
		},
		OffShows: []string{"INV-DUP"},
		Bugs:     []string{"Z08"},
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			records := v.Config().App.Records
			k := 1 + rng.Int64N(max(1, records-2))
			iv := v.Config().App.SendInterval
			// The acknowledgement of request k (send k-1, at (k-1)·iv) is
			// lost; the crash comes 1.5 intervals after that send.
			base := time.Duration(k+1)*iv - iv/2
			if at := v.Config().Extra.FaultAt; at >= 0 {
				base = at
				k = min(max(1, int64((at-iv/2)/max(iv, 1))), max(1, records))
			}
			crash := base + jitter(rng, 0, iv/4)
			down := v.Config().Extra.RestartDown
			p := faults.Plan{Actions: []faults.Timed{
				{At: 0, Action: faults.Drop{Dir: simnet.Response, N: k, From: nodes.Clients[0], To: nodes.Servers[0]}},
				{At: crash, Action: faults.Crash{Node: nodes.Servers[0]}},
				{At: crash + down, Action: faults.Restart{Node: nodes.Servers[0], Clean: v.Config().Extra.RestartClean}},
			}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
