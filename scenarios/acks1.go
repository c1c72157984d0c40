package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(acks1) }

// acks1 is one of the replication scenarios (issue #14, docs/replication.md):
// three brokers, three copies of the partition, a controller.
func acks1() *Scenario {
	return &Scenario{
		Name:    "acks1",
		Summary: "acks=1: the leader acknowledges, crashes before its followers fetched, and a follower takes over without the records",
		Story: `Three brokers hold a copy each of the partition; b1 leads, its followers
fetch from 20 ms away. With acks=1 the leader answers as soon
as the batch is in its own log. It crashes while the latest batches are
still on it alone. The controller fences it after broker.session.timeout.ms
(9 s) and elects a follower from the ISR; the producer's Metadata request
finds the new leader and the producer retries there. The acknowledged
batches the new leader never had are gone: when b1 returns it truncates
them by leader epoch (KIP-101/279) and follows.

With acks=all the leader answers once every in-sync replica has the batch
(the high watermark passed it), and min.insync.replicas=2 refuses writes
that only the leader would hold: whatever was acknowledged survives the
failover. Idempotence needs acks=all, so -idempotence=true runs acks=all
(a configuration note says so); without idempotence the scenario runs
acks=1, Kafka's default before 3.0.

With fault noise (fault.count) real Kafka can duplicate with idempotence
on too: a follower that restarted rebuilds a window with the newest batch
only (as in statelost), and after it becomes leader an older retry gets
OUT_OF_ORDER_SEQUENCE_NUMBER and the client bumps its epoch.`,
		ExpectOff: "acks=1: acknowledged records are lost in the failover (INV-LOSS fails); retries after it may duplicate (INV-DUP)",
		ExpectOn:  "acks=all with min.insync.replicas=2: nothing acknowledged is lost; the new leader deduplicates retries",
		Defaults: []params.KV{{Key: "brokers", Value: "3"}, {Key: "acks", Value: "1"}, {Key: "min.insync.replicas", Value: "2"}, {Key: "records", Value: "60"}, {Key: "send.interval.ms", Value: "20"},
			{Key: "batch.size", Value: "1"}, {Key: "net.link.latency", Value: farFollowers}},
		Extra: []params.Param{
			{Key: "leader.down.ms", Kind: params.Int, Default: "15000", Unit: "ms", Doc: "time the crashed leader stays down", Min: 0, Max: 3_600_000},
			faultAtAuto("when the leader crashes, plus up to one send.interval.ms of jitter (-1: after a send the seed picks in the middle half of the workload, from send records/4 to 3·records/4)"),
		},
		OffShows: []string{"INV-LOSS"},
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			c := v.Config()
			n := max(c.App.Records, 4)
			k := n/4 + rng.Int64N(max(1, n/2))
			iv := c.App.SendInterval
			crash := faultAt(v, time.Duration(k)*iv) + jitter(rng, 0, iv)
			p := faults.Plan{Actions: []faults.Timed{
				{At: crash, Action: faults.Crash{Node: nodes.Brokers[0]}},
				{At: crash + c.Extra.LeaderDown, Action: faults.Restart{Node: nodes.Brokers[0]}},
			}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
