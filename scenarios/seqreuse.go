package scenarios

import (
	"math/rand/v2"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
	"github.com/idemsim/idemsim/sim"
)

func init() { register(seqreuse) }

func seqreuse() *Scenario {
	return &Scenario{
		Name:    "seqreuse",
		Summary: "a client that reuses sequence numbers makes the broker 'deduplicate' new data: acknowledged but lost",
		Story: `Midway, the topic's metadata flaps (a restarting broker briefly reports it
missing). A correct client keeps its per-partition sequence state. The
librdkafka 1.9.0 defect (-bug Z11) dropped the partition objects and
restarted their sequences at 0; the broker still holds the producer's
state, finds the new batches' ranges in its window and answers them as
duplicates with the old offsets: the application sees success, but its
records are not in the log. The franz-go #1217 variant
(-bug Z11f) frees the sequence numbers of a batch that timed out after it
was written, so the next records take them and are swallowed the same way.`,
		ExpectOff: "nothing to show: without idempotence there are no sequence numbers",
		ExpectOn:  "no loss with a correct client; with -bug Z11 or Z11f, INV-DEDUP and INV-LOSS fail",
		Defaults: []params.KV{{Key: "records", Value: "40"}, {Key: "batch.size", Value: "1"}, {Key: "delivery.timeout.ms", Value: "3000"}, {Key: "request.timeout.ms", Value: "1000"},
			{Key: "app.idle.after", Value: "22"}, {Key: "app.idle.ms", Value: "4000"}},
		Extra: []params.Param{
			{Key: "metaflap.at.ms", Kind: params.Int, Default: "450", Unit: "ms", Doc: "when the topic's metadata flaps, after the first 5 batches (0: never)", Min: 0, Max: 3_600_000},
			{Key: "cut.at.ms", Kind: params.Int, Default: "2100", Unit: "ms", Doc: "when the broker's responses to the producer are cut (one-way partition; 0: never)", Min: 0, Max: 3_600_000},
			{Key: "cut.ms", Kind: params.Int, Default: "3300", Unit: "ms", Doc: "how long the responses stay cut: a little longer than delivery.timeout.ms, so the first written batch expires", Min: 0, Max: 3_600_000},
		},
		OffNote: "sequence numbers exist only with idempotence",
		Bugs:    []string{"Z11", "Z11f"},
		build: func(b world.Builder) error {
			b.AddApp(0)
			if at := b.Config().Extra.MetaflapAt; at > 0 {
				b.MetaFlap(sim.Time(at))
			}
			return nil
		},
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			var p faults.Plan
			if at := v.Config().Extra.CutAt; at > 0 {
				// Just after a send reaches the broker, before its
				// response leaves: the batch is written, unacknowledged.
				at += jitter(rng, v.Config().Net.Latency.Base+v.Config().Net.Latency.Spread*2, v.Config().Net.Latency.Spread)
				b, c := []string{nodes.Servers[0]}, []string{nodes.Clients[0]}
				p.Actions = append(p.Actions,
					faults.Timed{At: at, Action: faults.CutOneWay{A: b, B: c}},
					faults.Timed{At: at + v.Config().Extra.Cut, Action: faults.HealOneWay{A: b, B: c}})
			}
			return withNoise(rng, v, nodes, p)
		},
	}
}
