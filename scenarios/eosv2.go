package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

func init() { register(eosv2) }

// eosv2Defaults are eosv2's parameters, which groupid shares.
func eosv2Defaults(mode string) []params.KV {
	return []params.KV{{Key: "records", Value: "120"}, {Key: "transactional.id", Value: "t1"}, {Key: "transaction.records", Value: "10"},
		{Key: "app.mode", Value: mode}, {Key: "app.input", Value: "topic"}, {Key: "input.partitions", Value: "2"}, {Key: "partitions", Value: "2"},
		{Key: "app.instances", Value: "2"}, {Key: "session.timeout.ms", Value: "10000"}, {Key: "coordinator.next.pid", Value: "42"}}
}

// eosv2Extra are the pause's parameters.
func eosv2Extra() []params.Param {
	return []params.Param{
		{Key: "pause.at", Kind: params.Duration, Default: "2.5s", Doc: "when p1's pause starts (jittered by up to 1s: the window holds its third and fourth transactions, open or committing)", Min: 0, Max: 3600e9},
		{Key: "pause.ms", Kind: params.Int, Default: "25000", Unit: "ms", Doc: "length of p1's GC pause: longer than session.timeout.ms, so the group removes p1 and gives its partition to p2", Min: 0, Max: 3_600_000},
	}
}

// eosv2Plan pauses p1 at pause.at, jittered.
func eosv2Plan(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
	at := jitter(rng, v.Config().Extra.PauseAt, time.Second)
	p := faults.Plan{Actions: []faults.Timed{{At: at, Action: faults.Pause{Node: nodes.Clients[0], For: v.Config().Extra.Pause}}}}
	return withNoise(rng, v, nodes, p)
}

func eosv2() *Scenario {
	return &Scenario{
		Name:    "eosv2",
		Summary: "KIP-447: a paused instance loses its partition in a rebalance; its commit is refused on the generation and its transaction aborts",
		Story: `An exactly-once application in the KIP-447 design (app.mode=exactly-once-v2,
Kafka 2.5 and later, Kafka Streams' exactly_once_v2) runs two instances at
once, p1 and p2. Each is a consumer in the application's group app-0 (the
classic protocol, range assignor) and a transactional producer with its
own transactional.id (t1-0, t1-1). The group gives each one of the two
input partitions; each instance writes its records to the output in
transactions of 10 that commit its consumer's offsets with its group
metadata (KafkaProducer.sendOffsetsToTransaction(offsets,
groupMetadata): TxnOffsetCommit with the member id and generation).

p1 stalls in a GC pause (25s) longer than session.timeout.ms (10s). The
group coordinator removes it and rebalances: p2 commits its open
transaction (onPartitionsRevoked), rejoins and gets both partitions in
the next generation. It fetches their committed offsets with
require_stable: while a transaction of p1's holds a pending offset commit
(the pause came between its TxnOffsetCommit and its EndTxn), the answer is
UNSTABLE_OFFSET_COMMIT and p2 retries until that transaction ends
(offset_fetch_unstable > 0). When p1 wakes inside an open transaction, it
still holds the old generation: its TxnOffsetCommit is refused
(UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION, counted in
commits_fenced_by_generation), which the Java client makes an abortable
error (CommitFailedException); p1 aborts, and what it wrote in that
transaction never reaches a read_committed reader. p1 then rejoins and the
group splits the partitions again. No transactional.id is shared, so no
epoch bump fences p1: the group's generation does. Every input record
appears exactly once in the committed output (INV-EOS, per input
partition).

The pre-2.5 design, one transactional.id per input partition, is the
zombie scenario (app.mode=exactly-once). The deprecated
sendOffsetsToTransaction(offsets, groupId), without the generation, is
the groupid scenario. Without idempotence (-idempotence=false) there are
no transactions: the consumers commit their positions themselves (Kafka's
default enable.auto.commit, every 5s), the new owner reads p1's partition
from p1's last commit and writes again what p1 wrote since (INV-DUP).`,
		ExpectOff: "no transactions: the consumers auto-commit every 5s; p2 reads p1's partition from p1's last commit after the rebalance and writes those records again (INV-DUP)",
		ExpectOn:  "where the pause lands in an open transaction, p1's commit is refused on the generation (commits_fenced_by_generation > 0) and its transaction aborts; no duplicates; INV-EOS holds on both input partitions",
		Defaults:  eosv2Defaults("exactly-once-v2"),
		Extra:     eosv2Extra(),
		OffShows:  []string{"INV-DUP"},
		build: func(b world.Builder) error {
			b.AddApp(0)
			return nil
		},
		plan: eosv2Plan,
	}
}
