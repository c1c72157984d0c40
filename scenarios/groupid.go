package scenarios

import (
	"github.com/idemsim/idemsim/scenarios/world"
)

func init() { register(groupid) }

func groupid() *Scenario {
	return &Scenario{
		Name:    "groupid",
		Summary: "eosv2 with the deprecated sendOffsetsToTransaction(offsets, groupId): no generation check, the zombie's transaction commits what the new owner wrote again",
		Story: `eosv2's application and pause, with the deprecated
KafkaProducer.sendOffsetsToTransaction(offsets, groupId)
(app.mode=exactly-once-groupid): the TxnOffsetCommit carries the group id
only, generation -1 and no member id, and the group coordinator skips the
generation check for it (a transactional commit without a member is
accepted: ClassicGroup.validateOffsetCommit). p1 pauses past
session.timeout.ms inside a transaction; the group gives its partition to
p2, which reads it from the last committed offset and writes those records
again. When p1 wakes, nothing fences it: its transactional.id is its own
(no epoch bump), and its offset commit is accepted, so its transaction
commits the records p2 wrote too (INV-DUP, INV-EOS: an input record more
than once in the committed output). Kafka 2.5 deprecated the call for this
reason (KIP-447); eosv2 is the same run with the group metadata.`,
		ExpectOff: "no transactions: the consumers auto-commit every 5s; p2 reads p1's partition from p1's last commit after the rebalance and writes those records again (INV-DUP)",
		ExpectOn:  "where the pause lands in p1's open transaction, its commit is accepted after p2 rewrote the records: duplicates in the committed output (INV-DUP, INV-EOS) in a fraction of seeds",
		Defaults:  eosv2Defaults("exactly-once-groupid"),
		Extra:     eosv2Extra(),
		OffShows:  []string{"INV-DUP"},
		OnShows:   []string{"INV-DUP", "INV-EOS"},
		OnNote:    "the deprecated call is unsafe in real Kafka too: nothing fences a paused instance with its own transactional.id once its generation is not checked",
		build: func(b world.Builder) error {
			b.AddApp(0)
			return nil
		},
		plan: eosv2Plan,
	}
}
