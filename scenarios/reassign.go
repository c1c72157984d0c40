package scenarios

import (
	"math/rand/v2"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

func init() { register(reassign) }

// reassign is an operations scenario (issue #35, docs/operations.md): a
// partition moved to another broker while an idempotent producer writes
// to it, then its preferred leader restored.
func reassign() *Scenario {
	return &Scenario{
		Name:    "reassign",
		Summary: "a partition is reassigned to another broker while an idempotent producer writes to it, then its preferred leader is elected: leadership moves twice, nothing is lost or duplicated",
		Story: `Four brokers; the partition has three copies, on b1 (the leader), b2
and b3, min.insync.replicas=2, and an idempotent producer sends a record
every 20 ms with acks=all. At fault.at.ms an operator moves the
partition off b1 (kafka-reassign-partitions.sh; the plan's "reassign p0
b4,b2,b3", docs/plans.md). The controller follows KIP-455
(docs/operations.md): it adds b4 to the replicas (b4,b2,b3,b1, b1
removing), b4 starts empty and fetches from the leader, and once it has
caught up the leader adds it to the ISR; that AlterPartition completes
the reassignment: b1 leaves the replicas and the ISR and, as it led,
leadership goes to the first new replica in the ISR, b4, at a new
leader epoch. b1 deletes its copy. elect.after.ms later the operator
reorders the replicas to b2,b3,b4 (a reassignment that moves no data,
complete at once, b4 still leading) and runs a preferred-leader election
(kafka-leader-election.sh --election-type PREFERRED, the plan's
"elect-preferred p0"): b2, first and in the ISR, becomes the leader.

What the client sees: twice, the produce requests in flight at the
moving leader are answered NOT_LEADER_OR_FOLLOWER (the acks=all
batches it was still waiting for included: they may have been
replicated already); the producer asks for metadata and sends them again
to the new leader. With idempotence the new leader holds the producer's
state, replicated with the batches, and answers a retry of a batch it
already has as a duplicate with the original offset: nothing is lost
or written twice (TestReassignInvariants: seeds 1-200, every record
acknowledged; NOT_LEADER_OR_FOLLOWER 6 times in 198 runs, 7 and 11 in
the others). Without idempotence such a retry is appended a second time
(INV-DUP, 187 of 200 runs), and the batches sent behind a refused one
land before its retry (INV-ORDER, every run: five requests in flight).`,
		ExpectOff: "a retry of a batch the new leader already replicated is appended again (INV-DUP), and retries land out of order (INV-ORDER)",
		ExpectOn:  "leadership moves twice, the client sees NOT_LEADER_OR_FOLLOWER and retries; nothing lost or duplicated",
		Defaults: []params.KV{{Key: "brokers", Value: "4"}, {Key: "replication.factor", Value: "3"}, {Key: "records", Value: "200"},
			{Key: "send.interval.ms", Value: "20"}, {Key: "batch.size", Value: "1"}, {Key: "min.insync.replicas", Value: "2"},
			{Key: "net.link.latency", Value: farFollowers}},
		Extra: []params.Param{
			{Key: "elect.after.ms", Kind: params.Int, Default: "1500", Unit: "ms", Doc: "time from the reassignment to the reordering of the replicas and the preferred-leader election", Min: 0, Max: 3_600_000},
			faultAtFixed("1000", "when the operator reassigns the partition, plus up to one send.interval.ms of jitter"),
		},
		OffShows: []string{"INV-DUP"},
		build:    oneApp,
		plan: func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
			c := v.Config()
			at := c.Extra.FaultAt + jitter(rng, 0, c.App.SendInterval)
			// p0's replicas are b1, b2, b3. With -set brokers=3 there is
			// no broker to move to: the reassignment only reorders them
			// (b3, b2, b1: no data moves, b1 still leads), and the
			// election moves the leadership to b2.
			b := nodes.Brokers
			moved, after := []string{b[2], b[1], b[0]}, []string{b[1], b[2], b[0]}
			if len(b) > 3 {
				moved, after = []string{b[3], b[1], b[2]}, []string{b[1], b[2], b[3]}
			}
			p := faults.Plan{Actions: []faults.Timed{
				{At: at, Action: faults.Reassign{Part: 0, Replicas: moved}},
				{At: at + c.Extra.ElectAfter, Action: faults.Reassign{Part: 0, Replicas: after}},
				{At: at + c.Extra.ElectAfter, Action: faults.ElectPreferred{Parts: []int32{0}}},
			}}
			return withNoise(rng, v, nodes, p)
		},
	}
}
