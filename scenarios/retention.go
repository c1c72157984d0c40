package scenarios

import (
	"math/rand/v2"

	"github.com/idemsim/idemsim/faults"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(retention) }

// retention: an idempotent producer idles while retention deletes its
// batches, with one retry pending (docs/operations.md "Log start
// movement").
func retention() *Scenario {
	return &Scenario{
		Name:    "retention",
		Summary: "retention deletes an idle producer's batches while a retry is pending: deduplicated within producer.id.expiration.ms (KIP-360), appended again past it",
		Story: `The producer sends 20 records, one per batch; the broker appends them,
but the acknowledgement of the 10th is lost. The application then goes
idle for 60 s. The broker's retention check (retention.ms=5000, checked
every second) deletes every batch older than 5 s: the log start moves
past all of the producer's batches (the trace's "log start" lines).
The producer retries the 10th batch when its request times out
(request.timeout.ms, 30 s).

Since KIP-360 (KAFKA-7190, Kafka 2.4) the broker keeps a producer's
state when its batches are deleted: it goes only when
producer.id.expiration.ms passes (ProducerStateManager.
onLogStartOffsetIncremented drops only unreplicated transactions). With
the scenario's producer.id.expiration.ms=60000 the retry comes within
it: the broker finds the batch in the producer's window and answers it
as a duplicate, with the offset of the deleted original; nothing is
appended twice. With -set producer.id.expiration.ms=10000 the state
expires before the retry: the broker has no record of the producer and,
like every release this model covers (3.0 to 4.1: ProducerAppendInfo.
checkSequence accepts an unknown producer at any sequence), appends the
retry as new data, so the record lands twice (INV-DUP; INV-SEQ too: its
sequence repeats) and the producer sees no error. The outcome is the same at kafka.version=3.0 and 4.1 (and
for the 3.x and 4.x Java clients): no covered broker answers
UNKNOWN_PRODUCER_ID, so the client's KIP-360 handling of that error (its
log start comparison, an epoch bump) never runs. Brokers before KIP-360,
older than any release the model covers, answered UNKNOWN_PRODUCER_ID
here.

INV-LOSS does not count the deleted records as lost: they were
committed, then deleted by retention, which the trace reports.`,
		ExpectOff: "the retried batch lands twice (INV-DUP fails): without idempotence nothing deduplicates it",
		ExpectOn:  "no invariant fails: the retry is deduplicated against the deleted batch's kept state (KIP-360); with -set producer.id.expiration.ms=10000 (below the retry's delay) the record lands twice (INV-DUP, INV-SEQ), at every covered version",
		Defaults: []params.KV{{Key: "records", Value: "20"}, {Key: "batch.size", Value: "1"}, {Key: "producer.id.expiration.ms", Value: "60000"},
			{Key: "producer.id.expiration.check.interval.ms", Value: "1000"}, {Key: "net.disconnect_notice", Value: "0"},
			{Key: "retention.ms", Value: "5000"}, {Key: "log.retention.check.interval.ms", Value: "1000"},
			{Key: "app.idle.after", Value: "10"}, {Key: "app.idle.ms", Value: "60000"}},
		OffShows: []string{"INV-DUP"},
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			// Lose the acknowledgement of the last request before the
			// idle period, as in expiry.
			p := faults.Plan{Actions: []faults.Timed{{At: 0, Action: faults.Drop{Dir: simnet.Response, N: v.Config().App.IdleAfter,
				From: nodes.Clients[0], To: nodes.Servers[0]}}}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
