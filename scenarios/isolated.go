package scenarios

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

func init() { register(isolated) }

// isolated is one of the replication scenarios (issue #14, docs/replication.md):
// three brokers, three copies of the partition, a controller.
func isolated() *Scenario {
	return &Scenario{
		Name:    "isolated",
		Summary: "a leader cut off from the controller and its followers keeps accepting acks=1 writes, which are truncated when it learns it was replaced",
		Story: `Three brokers hold a copy each of the partition; b1 leads. A network
partition cuts b1 off from the controller and from its followers, but not
from the producer. The controller fences b1 after broker.session.timeout.ms
and elects b2; b1 never hears of it (docs/replication.md) and, with
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
			faultAtFixed("2000", "when the leader is cut off from its followers and the controller, plus up to 4s of jitter"),
		},
		OffShows: []string{"INV-LOSS"},
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			c := v.Config()
			b := nodes.Brokers
			// The other brokers and the controller; not the producer, not
			// the transaction coordinator.
			rest := append(slices.Clone(b[1:]), world.Topology{}.ControllerName())
			at := jitter(rng, c.Extra.FaultAt, 4*time.Second)
			p := faults.Plan{Actions: []faults.Timed{
				{At: at, Action: faults.Cut{A: b[:1], B: rest}},
				{At: at + c.Extra.LeaderDown, Action: faults.Heal{A: b[:1], B: rest}},
			}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
