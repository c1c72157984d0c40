package scenarios

import (
	"math/rand/v2"
	"slices"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(hangingAbort) }

// hangingAbort is hanging at kafka.version=3.5 with an operator who finds
// the hanging transaction and aborts it (KIP-664, docs/operations.md).
func hangingAbort() *Scenario {
	h := hanging()
	return &Scenario{
		Name:    "hanging-abort",
		Summary: "hanging at Kafka 3.5, then an operator finds the hanging transaction and aborts it with the admin client: the last stable offset moves again",
		Story: `hanging at kafka.version=3.5 (no KIP-890 verification): a
transactional producer's last batch, held in the network (plan action
"late") past delivery.timeout.ms and the abort that follows, reaches
partition 0 after its transaction's ABORT marker and opens a
transaction no coordinator knows. The last stable offset of partition 0
stops at its offset; the read_committed consumer r1 reads everything
below it and then waits, its fetches of p0 returning nothing while the
high watermark is above it.

At abort.at.ms (10 s) an operator runs the admin node a1 (model/admin;
plan line "abort-transaction a1 partition 0"), as with
kafka-transactions.sh, KIP-664 (Kafka 3.0):
  1. find-hanging --topic --partition 0: DescribeProducers to p0's leader
     lists its active producers; the one with an open transaction
     (CurrentTransactionStartOffset >= 0) is a candidate;
  2. ListTransactions filtered by that producer id, to the transaction
     coordinator, finds its transactional id (t1);
  3. DescribeTransactions t1: the coordinator holds t1 at a later epoch,
     in CompleteAbort or Empty, without partition 0: the transaction is
     hanging;
  4. abort (Admin.abortTransaction with the producer id, epoch and
     coordinator epoch DescribeProducers gave): the admin sends
     WriteTxnMarkers with one ABORT marker to p0's leader, which appends
     it. The last stable offset moves to the log end, and r1 reads on:
     the hanging transaction's record is aborted, never returned.
Each answer is a trace line of a1 ("a1 describe-producers p0: NONE, 1
active; pid ...", "a1 find-hanging p0: 1 hanging; ...", "a1 abort p0 pid
... : NONE").

With idempotence, seeds 1-200: INV-FENCE fails in every run (the late
batch was appended after its transaction's end marker: the abort does
not undo that); LIVE-LSO holds (the stuck LSO moved before the run
ended) and so does LIVE-READ (r1 waited about 3 s, less than
consumer.stuck.ms, 10 s here). Without the abort (-set admin=false, or
abort.at.ms=0) the run is hanging's at 3.5: LIVE-LSO and LIVE-READ fail
too.`,
		ExpectOff: "nothing to show: transactions need idempotence",
		ExpectOn:  "the late batch opens a hanging transaction on p0 (INV-FENCE: a batch after its transaction's end marker) and the last stable offset stops there; after the admin's find-hanging and abort it moves to the log end and the consumer reads past it: LIVE-LSO and LIVE-READ hold",
		// hanging's settings at 3.5, but for its consumer.stuck.ms (3 s):
		// the consumer waits about 3 s for the operator, within the
		// default bound (10 s).
		Defaults: append([]params.KV{{Key: "kafka.version", Value: "3.5"}},
			slices.DeleteFunc(slices.Clone(h.Defaults), func(kv params.KV) bool { return kv.Key == "consumer.stuck.ms" })...),
		Extra: append(slices.Clone(h.Extra), params.AdminParam(true),
			params.Param{Key: "abort.at.ms", Kind: params.Int, Default: "10000", Unit: "ms", Doc: "when the operator runs the admin's find-hanging and abort on partition 0 (0: never)", Min: 0, Max: 3_600_000}),
		OffNote:    h.OffNote,
		OnShows:    []string{"INV-FENCE"},
		OnNote:     "Kafka 3.5 appends the late batch after its transaction's ABORT marker (KAFKA-14053, fixed by KIP-890's verification in 3.6); the operator's abort ends the transaction it opened but does not undo the append",
		SingleCopy: h.SingleCopy,
		build:      oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			p := h.plan(rng, v, nodes)
			if at := v.Config().Extra.AbortAt; at > 0 && len(nodes.Admins) > 0 {
				p.Actions = append(p.Actions, faults.Timed{At: at, Action: faults.AbortTxn{Admin: nodes.Admins[0], Partition: 0, StartOffset: -1, Producer: -1}})
				p.SortByTime()
			}
			return p
		},
	}
}
