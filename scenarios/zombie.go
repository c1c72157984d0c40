package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
	"github.com/idemsim/idemsim/sim"
)

func init() { register(zombie) }

func zombie() *Scenario {
	return &Scenario{
		Name:    "zombie",
		Summary: "an exactly-once application's paused instance is fenced by its replacement; nothing is lost or written twice",
		Story: `An exactly-once application in Kafka's pre-2.5 design (app.mode=exactly-once:
one transactional.id per input partition, shared by the application's
instances; the eosv2 scenario shows the KIP-447 design, one
transactional.id per instance fenced by the consumer group's generation)
reads input records in order from its input topic, through a read_committed consumer, and writes
each as an output record in transactions of 10 that also commit its
consumer's offset (KafkaProducer.sendOffsetsToTransaction: under
transaction version 2, the default, TxnOffsetCommit v5 to the group
coordinator g1, which adds the offsets partition to the transaction at
the transaction coordinator c1 itself; under the classic protocol,
AddOffsetsToTxn to c1 first). Its
instance v1 (p1) has producer id 42. v1 stalls in a GC pause longer than
its supervisor waits: 650ms after the pause starts the application starts
v2 (p2) with the same transactional.id. v2's InitProducerId bumps the
epoch and aborts v1's open transaction (markers with the new epoch); v2
then fetches the committed offset (OffsetFetch with require_stable) and
seeks its consumer there, so it sends again exactly what v1 had not
committed. When v1 wakes, its writes, its offset commit or its
EndTxn carry the old epoch and are refused (INVALID_PRODUCER_EPOCH,
PRODUCER_FENCED): v1 is fenced, and every input record appears exactly
once in the committed output (INV-EOS).

app.mode=at-least-once, for contrast, is the application that commits its
consumer's offsets itself (commitSync) after each transaction commits,
and v2 reads from those: when v1's commit landed but the pause hid its
answer (about 1% of seeds), v1 never committed the offsets, and v2 reads
those records again and commits them twice (INV-DUP). Whichever
instance calls initTransactions last wins: if v1's
InitProducerId is delayed past v2's (simulate -explore, 1 fault), v1 gets
the newer epoch and fences v2, which stops with PRODUCER_FENCED (LIVE-PROD
reports a spurious fatal); v1 commits the input and nothing is lost or
written twice. Every instance, the first one included, reads its input
from the committed position once initTransactions is done, and so does a
crashed instance that restarts. A non-transactional idempotent zombie is never fenced: a new
instance gets a new producer id, which is the restart story (scenario
restart). Without idempotence (-idempotence=false) there is no
transactional.id, and Kafka allows no transactions: the application runs
at least once, v1's late writes land and duplicate what v2 sent again.

With random faults (fault.count=4, seeds 1-2000, idempotence on), 55
runs end with an instance stopped by PRODUCER_FENCED while no newer one
exists (LIVE-PROD's spurious fatal): its transaction timed out during a
pause or a partition, and the coordinator's fence reached it before its
own abort, which the Java client handles as fatal. After an abortable
error the application seeks its input back to the committed position and
sends the aborted records again, so INV-EOS holds.`,
		ExpectOff: "no transactional.id: the application runs at least once; v1's late writes land (zombie_writes > 0) and duplicate v2's (INV-DUP)",
		ExpectOn:  "v1 is fenced (fenced > 0), zombie_writes = 0, no duplicates, every input record exactly once in the committed output (INV-EOS holds)",
		Defaults: []params.KV{{Key: "records", Value: "60"}, {Key: "transactional.id", Value: "t1"}, {Key: "transaction.records", Value: "10"}, {Key: "app.mode", Value: "exactly-once"},
			{Key: "coordinator.next.pid", Value: "42"}, {Key: "app.input", Value: "topic"}, {Key: "linger.ms", Value: "1000"}, {Key: "batch.size", Value: "50"}},
		Extra: []params.Param{
			{Key: "pause.at", Kind: params.Duration, Default: "3.2s", Doc: "when v1's pause starts (jittered by up to 300ms; the window holds the commit of v1's third transaction, which comes 300ms later with the input topic than with app.input=synthetic: its consumer's first record is polled at 0.3s)", Min: 0, Max: 3600e9},
			{Key: "pause.ms", Kind: params.Int, Default: "25000", Unit: "ms", Doc: "length of v1's GC pause", Min: 0, Max: 3_600_000},
			{Key: "takeover.after.ms", Kind: params.Int, Default: "500", Unit: "ms", Doc: "time from the pause's nominal start to v2's start (plus 150ms): how fast the application's supervisor replaces an unresponsive instance", Min: 0, Max: 3_600_000},
		},
		OffShows: []string{"INV-DUP"},
		build: func(b world.Builder) error {
			a := b.AddApp(0)
			at := b.Config().Extra.PauseAt + b.Config().Extra.TakeoverAfter
			// v2 starts at a fixed offset from the pause's nominal start;
			// the plan jitters the pause itself.
			b.AddInstance(a, sim.Time(at+150*time.Millisecond))
			return nil
		},
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			at := jitter(rng, v.Config().Extra.PauseAt, 300*time.Millisecond)
			p := faults.Plan{Actions: []faults.Timed{{At: at, Action: faults.Pause{Node: nodes.Clients[0], For: v.Config().Extra.Pause}}}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
