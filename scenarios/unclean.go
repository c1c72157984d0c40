package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(unclean) }

// unclean is one of the replication scenarios (issue #14, docs/replication.md):
// three brokers, three copies of the partition, a controller.
func unclean() *Scenario {
	return &Scenario{
		Name:    "unclean",
		Summary: "the ISR shrinks to the leader, the leader dies, and an out-of-sync follower is elected: acknowledged acks=all writes are lost",
		Story: `Three brokers hold a copy each of the partition; b1 leads. A network
partition cuts b1 off from its followers (not from the controller or the
producer). After replica.lag.time.max.ms the leader shrinks the ISR to
itself, and with min.insync.replicas=1 it goes on acknowledging acks=all
writes that only it holds. Then it crashes. No in-sync replica is left.
With unclean.leader.election.enable the controller (KRaft from 3.9,
KAFKA-12670) elects an out-of-sync follower: every write since the cut is
lost, and b1 truncates it when it returns. Without unclean election the
partition stays offline until b1 returns and is elected again: nothing is
lost, the producer retries until then.

Idempotence changes nothing here: the records are lost on the broker side.
With fault noise INV-SEQ can fail too: the producer's first batches on the
partition are among the lost, so its surviving ones do not start at
sequence 0.`,
		ExpectOff: "unclean election: acknowledged records are lost (INV-LOSS fails)",
		ExpectOn:  "the same loss: idempotence cannot help; with unclean.leader.election.enable=false nothing is lost",
		Defaults: []params.KV{{Key: "brokers", Value: "3"}, {Key: "min.insync.replicas", Value: "1"}, {Key: "unclean.leader.election.enable", Value: "true"},
			{Key: "replica.lag.time.max.ms", Value: "4000"}, {Key: "records", Value: "100"}, {Key: "send.interval.ms", Value: "200"}},
		Extra: []params.Param{
			{Key: "leader.down.ms", Kind: params.Int, Default: "15000", Unit: "ms", Doc: "time the crashed leader stays down", Min: 0, Max: 3_600_000},
			faultAtFixed("1000", "when the leader is cut off from its followers, plus up to 1s of jitter; it crashes 2·replica.lag.time.max.ms plus 1s to 3s later, once it has shrunk the ISR to itself"),
		},
		OffShows: []string{"INV-LOSS"},
		OnShows:  []string{"INV-LOSS"},
		OnNote: "real Kafka loses acknowledged records in an unclean election whatever the producer does; the lost records' " +
			"offsets hold the new leader's data, which is INV-LOSS alone (INV-DEDUP judges only records still in the log)",
		build: oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			c := v.Config()
			b := nodes.Brokers
			cut := jitter(rng, c.Extra.FaultAt, time.Second)
			// The crash comes after the ISR shrink: the check runs every
			// lag/2, so by cut + 2 lag it has run past the lag.
			crash := cut + 2*c.Replication.LagTimeMax + jitter(rng, time.Second, 2*time.Second)
			p := faults.Plan{Actions: []faults.Timed{
				{At: cut, Action: faults.Cut{A: b[:1], B: b[1:]}},
				{At: crash, Action: faults.Crash{Node: b[0]}},
				{At: crash + c.Extra.LeaderDown, Action: faults.Heal{A: b[:1], B: b[1:]}},
				{At: crash + c.Extra.LeaderDown, Action: faults.Restart{Node: b[0]}},
			}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
