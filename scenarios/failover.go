package scenarios

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(failover) }

// failover is one of the replication scenarios (issue #14, docs/replication.md):
// three brokers, three copies of the partition, a controller.
func failover() *Scenario {
	return &Scenario{
		Name:    "failover",
		Summary: "the leader dies or is cut off while the producer sends with retries: without idempotence the retries to the new leader duplicate",
		Story: `Three brokers hold a copy each of the partition; b1 leads, its followers
fetch from 20 ms away, and the producer sends with acks=all and retries
(after Jack Vanlightly's 2018 failover tests of the idempotent producer).
In the middle of the stream the leader either crashes or is cut off from
everyone (producer, followers, controller). Batches it had appended and
its followers had replicated are not acknowledged in time; the controller
fences b1 after broker.session.timeout.ms and elects a follower, the
producer's Metadata request finds it, and the producer retries there.

Without idempotence each such retry is a second copy (INV-DUP). With
idempotence the new leader rebuilt the producer state from what it
replicated (its log and snapshot), recognises the retries as duplicates and answers with
their offsets: nothing is lost or written twice. A cut-off leader comes
back as a follower and truncates what only it had.

Random faults (fault.count) break the promise in real Kafka too: after a
broker's clean restart and an election, the new leader's producer state
may come from a snapshot, which keeps only the newest batch of each
producer, so a retry of an older written batch gets
OUT_OF_ORDER_SEQUENCE_NUMBER; the Java client bumps the epoch for its head
batch and sends it again at sequence 0: INV-DUP (15 of seeds 1-2000 with
fault.count=4 and idempotence).`,
		ExpectOff: "retries to the new leader write replicated batches again (INV-DUP fails)",
		ExpectOn:  "the new leader deduplicates the retries from the replicated producer state; nothing lost or duplicated",
		Defaults: []params.KV{{Key: "brokers", Value: "3"}, {Key: "records", Value: "60"}, {Key: "send.interval.ms", Value: "20"}, {Key: "batch.size", Value: "1"},
			{Key: "net.link.latency", Value: farFollowers}},
		Extra: []params.Param{
			{Key: "leader.down.ms", Kind: params.Int, Default: "15000", Unit: "ms", Doc: "time the leader stays crashed or cut off", Min: 0, Max: 3_600_000},
			faultAtAuto("when the leader crashes or is cut off, plus up to one send.interval.ms of jitter (-1: after a send the seed picks in the middle half of the workload, from send records/4 to 3·records/4)"),
		},
		OffShows: []string{"INV-DUP"},
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			c := v.Config()
			n := max(c.App.Records, 4)
			k := n/4 + rng.Int64N(max(1, n/2))
			iv := c.App.SendInterval
			at := faultAt(v, time.Duration(k)*iv) + jitter(rng, 0, iv)
			b := nodes.Brokers[0]
			var p faults.Plan
			if rng.IntN(2) == 0 {
				p.Actions = []faults.Timed{
					{At: at, Action: faults.Crash{Node: b}},
					{At: at + c.Extra.LeaderDown, Action: faults.Restart{Node: b}},
				}
			} else {
				var others []string
				for _, s := range append(slices.Clone(nodes.Clients), nodes.Servers...) {
					if s != b {
						others = append(others, s)
					}
				}
				p.Actions = []faults.Timed{
					{At: at, Action: faults.Cut{A: []string{b}, B: others}},
					{At: at + c.Extra.LeaderDown, Action: faults.Heal{A: []string{b}, B: others}},
				}
			}
			return withNoise(rng, v, nodes, p)
		},
	}
}
