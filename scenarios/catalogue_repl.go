package scenarios

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// The replication scenarios (issue #14, docs/replication.md): three
// brokers, three copies of the partition, a controller.

// farFollowers is a net.link.latency that puts the followers b2 and b3 of
// partition 0 20 ms away from its leader b1 each way (another zone), so
// that a write sits on the leader alone for a fetch round trip.
const farFollowers = "b1>b2 constant base=20ms; b2>b1 constant base=20ms; b1>b3 constant base=20ms; b3>b1 constant base=20ms"

func acks1() *Scenario {
	return &Scenario{
		Name:    "acks1",
		Summary: "acks=1: the leader acknowledges, crashes before its followers fetched, and a follower takes over without the records",
		Story: `Three brokers hold a copy each of the partition; b1 leads, its followers
fetch from 20 ms away. With acks=1 (bug-zoo Z06) the leader answers as soon
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
		},
		OffShows: []string{"INV-LOSS"},
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			c := v.Config()
			n := max(c.App.Records, 4)
			k := n/4 + rng.Int64N(max(1, n/2))
			iv := c.App.SendInterval
			crash := time.Duration(k)*iv + jitter(rng, 0, iv)
			p := faults.Plan{Actions: []faults.Timed{
				{At: crash, Action: faults.Crash{Node: nodes.Brokers[0]}},
				{At: crash + c.Extra.LeaderDown, Action: faults.Restart{Node: nodes.Brokers[0]}},
			}}
			return withNoise(rng, v, nodes, p)
		},
	}
}

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
		},
		OffShows: []string{"INV-LOSS"},
		OnShows:  []string{"INV-LOSS", "INV-DEDUP"},
		OnNote: "real Kafka loses acknowledged records in an unclean election whatever the producer does; INV-DEDUP's " +
			"acknowledged-offset clause fires with INV-LOSS, the lost records' offsets holding the new leader's data",
		build: oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			c := v.Config()
			b := nodes.Brokers
			cut := jitter(rng, time.Second, time.Second)
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
replicated (B12), recognises the retries as duplicates and answers with
their offsets: nothing is lost or written twice. A cut-off leader comes
back as a follower and truncates what only it had.`,
		ExpectOff: "retries to the new leader write replicated batches again (INV-DUP fails)",
		ExpectOn:  "the new leader deduplicates the retries from the replicated producer state; nothing lost or duplicated",
		Defaults: []params.KV{{Key: "brokers", Value: "3"}, {Key: "records", Value: "60"}, {Key: "send.interval.ms", Value: "20"}, {Key: "batch.size", Value: "1"},
			{Key: "net.link.latency", Value: farFollowers}},
		Extra: []params.Param{
			{Key: "leader.down.ms", Kind: params.Int, Default: "15000", Unit: "ms", Doc: "time the leader stays crashed or cut off", Min: 0, Max: 3_600_000},
		},
		OffShows: []string{"INV-DUP"},
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			c := v.Config()
			n := max(c.App.Records, 4)
			k := n/4 + rng.Int64N(max(1, n/2))
			iv := c.App.SendInterval
			at := time.Duration(k)*iv + jitter(rng, 0, iv)
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

func isolated() *Scenario {
	return &Scenario{
		Name:    "isolated",
		Summary: "a leader cut off from the controller and its followers keeps accepting acks=1 writes, which are truncated when it learns it was replaced",
		Story: `Three brokers hold a copy each of the partition; b1 leads. A network
partition cuts b1 off from the controller and from its followers, but not
from the producer. The controller fences b1 after broker.session.timeout.ms
and elects b2; b1 never hears of it (replication spec R35) and, with
acks=1, goes on acknowledging every write the producer sends it. When the
partition heals, b1 catches up on the metadata it missed, resigns, follows
b2 and truncates by leader epoch everything it accepted while cut off: all
of it acknowledged, all of it lost. The producer, answered
NOT_LEADER_OR_FOLLOWER, refreshes its metadata and goes on with b2.

With acks=all the cut-off leader cannot commit anything (its followers do
not fetch): its writes wait, end when it resigns, and the producer retries
them to b2; nothing acknowledged is lost. Idempotence needs acks=all, so
-idempotence=true runs acks=all (a configuration note says so).`,
		ExpectOff: "acks=1: the writes b1 acknowledged while cut off are truncated (INV-LOSS fails)",
		ExpectOn:  "acks=all: nothing is acknowledged while b1 is cut off; the retries land on b2 once",
		Defaults:  []params.KV{{Key: "brokers", Value: "3"}, {Key: "acks", Value: "1"}, {Key: "records", Value: "100"}, {Key: "send.interval.ms", Value: "200"}, {Key: "batch.size", Value: "1"}},
		Extra: []params.Param{
			{Key: "leader.down.ms", Kind: params.Int, Default: "15000", Unit: "ms", Doc: "time the leader stays cut off", Min: 0, Max: 3_600_000},
		},
		OffShows: []string{"INV-LOSS"},
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			c := v.Config()
			b := nodes.Brokers
			// The other brokers and the controller; not the producer, not
			// the transaction coordinator.
			rest := append(slices.Clone(b[1:]), world.Topology{}.ControllerName())
			at := jitter(rng, 2*time.Second, 4*time.Second)
			p := faults.Plan{Actions: []faults.Timed{
				{At: at, Action: faults.Cut{A: b[:1], B: rest}},
				{At: at + c.Extra.LeaderDown, Action: faults.Heal{A: b[:1], B: rest}},
			}}
			return withNoise(rng, v, nodes, p)
		},
	}
}

func coordfailover() *Scenario {
	return &Scenario{
		Name:    "coordfailover",
		Summary: "the transaction coordinator's broker dies mid-commit: the coordinator on the new __transaction_state leader completes the commit",
		Story: `Three brokers; the transaction coordinator runs on b1, the leader of the
__transaction_state partition (replication.md R52-R58), and b1 also leads
partition 0. A transactional producer commits a transaction of 4 records
over two partitions every 400ms; the coordinator's markers take 40ms to
reach the leaders. b1 crashes at a random point of a transaction, often
while a commit's markers are on their way (PrepareCommit written, the
EndTxn answered or not). The coordinator goes down with it. After
broker.session.timeout.ms the controller fences b1 and elects new leaders:
for partition 0, and for __transaction_state, whose new leader b2 loads
the log under coordinator epoch + 1, sends the markers of every
PrepareCommit again and completes it (TransactionCoordinator.onElection;
X10). The producer retries its EndTxn (CONCURRENT_TRANSACTIONS until the
commit completes, then NONE) and goes on. A marker the old coordinator
had sent and that arrives after the new one's is refused
TRANSACTION_COORDINATOR_FENCED (B8). Every transaction the producer was
told committed is readable exactly once (INV-TXN), nothing acknowledged
is lost (INV-LOSS), and the last stable offset moves on (LIVE-LSO).`,
		ExpectOff: "nothing to show: transactions need idempotence",
		ExpectOn:  "the commit in flight completes on the new coordinator; no invariant fails",
		Defaults: []params.KV{{Key: "brokers", Value: "3"}, {Key: "partitions", Value: "2"}, {Key: "records", Value: "40"}, {Key: "batch.size", Value: "1"},
			{Key: "transactional.id", Value: "t1"}, {Key: "transaction.records", Value: "4"}, {Key: "min.insync.replicas", Value: "2"},
			{Key: "net.link.latency", Value: "c1>b1 constant base=40ms; c1>b2 constant base=40ms; c1>b3 constant base=40ms"}},
		Extra: []params.Param{
			{Key: "leader.down.ms", Kind: params.Int, Default: "15000", Unit: "ms", Doc: "time the coordinator's broker stays down", Min: 0, Max: 3_600_000},
		},
		OffNote: "transactions need idempotence",
		build:   oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			c := v.Config()
			// A random point of the third to seventh transaction.
			crash := 800*time.Millisecond + jitter(rng, 0, 2*time.Second)
			p := faults.Plan{Actions: []faults.Timed{
				{At: crash, Action: faults.Crash{Node: nodes.Brokers[0]}},
				{At: crash + c.Extra.LeaderDown, Action: faults.Restart{Node: nodes.Brokers[0]}},
			}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
