package scenarios

import (
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

func init() { register(rebalance) }

func rebalance() *Scenario {
	return &Scenario{
		Name:    "rebalance",
		Summary: "an at-least-once group application rebalanced mid-batch: the new owner reads again what the paused instance processed since its last commit",
		Story: `eosv2's schedule with an at-least-once application (app.mode=at-least-once,
app.instances=2, no transactions): p1 and p2 are consumers in the
application's group, each writing the records of the input partition the
group gives it, and their consumers commit their positions every
commit.interval.ms (Kafka's enable.auto.commit=true,
auto.commit.interval.ms; ConsumerCoordinator.maybeAutoCommitOffsetsAsync)
and before a rejoin (onJoinPrepare). p1 pauses past session.timeout.ms;
the group gives its partition to p2, which reads it from p1's last
commit and writes again what p1 wrote since (INV-DUP). When p1 wakes its
commit is refused on the generation (UNKNOWN_MEMBER_ID: the consumer's
OffsetCommit carries its group metadata, ConsumerCoordinator
.sendOffsetCommitRequest) and it rejoins. Idempotence does not help: the
duplicates are the application's, not the producer's retries. The
duplicate rate rises with commit.interval.ms (TestRebalanceCommitInterval,
seeds 1-100, idempotence on: 0.015 at 250ms, 0.043 at 1s, 0.075 at 2.5s,
0.198 at 5s, Kafka's default; from 5s on no commit comes before the
pause, and p2 reads p1's partition from its start). Kafka 3.0 and later (the
cooperative protocol of KIP-429 is not modelled: the eager one revokes
everything at each rebalance).`,
		ExpectOff: "p2 reads p1's partition from p1's last commit and writes again what p1 wrote since (INV-DUP)",
		ExpectOn:  "the same: idempotence deduplicates a producer's retries, not an application's reprocessing (INV-DUP); more duplicates with a longer commit.interval.ms",
		Defaults: []params.KV{{Key: "records", Value: "120"}, {Key: "app.mode", Value: "at-least-once"}, {Key: "app.input", Value: "topic"},
			{Key: "input.partitions", Value: "2"}, {Key: "partitions", Value: "2"}, {Key: "app.instances", Value: "2"}, {Key: "session.timeout.ms", Value: "10000"}},
		Extra:    eosv2Extra(),
		OffShows: []string{"INV-DUP"},
		OnShows:  []string{"INV-DUP"},
		OnNote:   "at least once by design: the new owner of a partition reads again from the group's last commit, in real Kafka too",
		build: func(b world.Builder) error {
			b.AddApp(0)
			return nil
		},
		plan: eosv2Plan,
	}
}
