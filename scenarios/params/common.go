package params

import (
	"math"
	"time"

	"github.com/idemsim/idemsim/model/client"
)

// Common returns the parameters every scenario has: the workload, the
// producer's Kafka configs, the broker's knobs and the network. Scenarios
// override some defaults and add their own.
func Common() []Param {
	return append(versionParams(), []Param{
		// Workload.
		{Key: "records", Kind: Int, Default: "20", Unit: "records", Doc: "records each application sends", Min: 1, Max: 1_000_000},
		{Key: "send.interval.ms", Kind: Int, Default: "100", Unit: "ms", Doc: "time between two sends of one application", Min: 0, Max: 3_600_000},
		{Key: "app.idle.after", Kind: Int, Default: "0", Unit: "records", Doc: "records the application sends before it goes idle once (0: never)", Min: 0, Max: 1_000_000},
		{Key: "app.idle.ms", Kind: Int, Default: "0", Unit: "ms", Doc: "length of that idle period", Min: 0, Max: 3_600_000},
		{Key: "app.input", Kind: Enum, Default: "synthetic", Values: []string{"synthetic", "topic"}, Doc: "where an application's input comes from: synthetic (a counter of message numbers) or topic (an input topic written before the run, read through a consumer per producer instance, read_committed, in the application's group; docs/consumers.md)"},
		{Key: "input.partitions", Kind: Int, Default: "1", Unit: "partitions", Doc: "app.input=topic: partitions of the input topic, led round robin like the output's; exactly-once needs 1 (its offset commit carries one offset per group); exactly-once-v2 and exactly-once-groupid commit one offset per partition", Min: 1, Max: 64},
		{Key: "app.instances", Kind: Int, Default: "1", Unit: "instances", Doc: "app.mode=exactly-once-v2, exactly-once-groupid or at-least-once (above 1: a group application): instances of the application running at once, p1..pN, each a consumer in the application's group (the group assigns them the input partitions, range assignor) and a producer with its own transactional.id (transactional.id, \"-\" and the instance's index from 0)", Min: 1, Max: 16},
		{Key: "commit.interval.ms", Kind: Int, Default: "5000", Unit: "ms", Doc: "a group application without transactions (app.mode=at-least-once with app.instances above 1, or without idempotence): how often its consumers commit their positions (Kafka's enable.auto.commit, auto.commit.interval.ms, default 5000); a new owner of a partition reads again what was processed since the last commit; 0: no auto-commit, the loop is poll, produce, commitSync once the poll's records are acknowledged", Min: 0, Max: 3_600_000},
		{Key: "session.timeout.ms", Kind: Int, Default: "45000", Unit: "ms", Doc: "a group application (app.instances): the instances' consumers' session.timeout.ms (Kafka's default since 3.0, KIP-735; the group coordinator allows 6000..1800000): a member silent that long is removed from the group and its partitions go to the others", Min: 6000, Max: 1_800_000},
		{Key: "unstable.bound.ms", Kind: Int, Default: "0", Unit: "ms", Doc: "LIVE-OFFSET' bound: how long a group member's require_stable OffsetFetch may be answered UNSTABLE_OFFSET_COMMIT (an open transaction's pending offsets) before it succeeds; 0 = transaction.timeout.ms plus transaction.abort.timed.out.transaction.cleanup.interval.ms plus 5000, the longest a coordinator that works leaves a transaction open", Min: 0, Max: 3_600_000},
		{Key: "max.poll.interval.ms", Kind: Int, Default: "300000", Unit: "ms", Doc: "a group application (app.instances): the instances' consumers' max.poll.interval.ms (Kafka's default): a member whose application does not poll that long (slow-poll in a plan) leaves the group, its heartbeat thread sending LeaveGroup", Min: 1000, Max: 3_600_000},
		{Key: "input.aborted", Kind: Int, Default: "0", Unit: "records", Doc: "app.input=topic: records of an aborted transaction written to input partition 0 before the input records (a read_committed reader skips them); with sequence.bits narrower than the count, one transaction per 2^bits records", Min: 0, Max: 1_000_000},
		{Key: "partitions", Kind: Int, Default: "1", Unit: "partitions", Doc: "partitions of the topic; partition p is led by broker p mod brokers, and records go round-robin", Min: 1, Max: 64},
		{Key: "brokers", Kind: Int, Default: "1", Unit: "brokers", Doc: "brokers b1..bN; with replication.factor above 1 a controller, n1, runs too (docs/replication.md)", Min: 1, Max: 64},
		{Key: "replication.factor", Kind: Int, Default: "-1", Unit: "replicas", Doc: "copies of each partition, on brokers p mod brokers and the next ones; -1 takes the default, min(3, brokers) (CreateTopics' -1: the broker's default.replication.factor); 1 is one copy and no controller", Min: -1, Max: 64},
		{Key: "min.insync.replicas", Kind: Int, Default: "1", Unit: "replicas", Doc: "min.insync.replicas: fewer in-sync replicas refuse acks=all (NOT_ENOUGH_REPLICAS)", Min: 1, Max: 64},
		{Key: "eligible.leader.replicas.version", Kind: Enum, Default: "1", Values: []string{"0", "1"}, Doc: "the cluster's finalized eligible.leader.replicas.version feature (KIP-966): 1 keeps replicas that left an ISR below min.insync.replicas eligible for a clean election; the profile sets 1 from broker 4.1 (clusters formatted by 4.1) and 0 before"},
		{Key: "replica.lag.time.max.ms", Kind: Int, Default: "30000", Unit: "ms", Doc: "replica.lag.time.max.ms: a follower behind this long leaves the ISR (Kafka 2.5+, KIP-537; 10000 before)", Min: 1, Max: math.MaxInt32},
		{Key: "unclean.leader.election.enable", Kind: Bool, Default: "false", Doc: "unclean.leader.election.enable: with no in-sync replica alive, elect an out-of-sync one (KRaft honours it from 3.9, KAFKA-12670)"},
		{Key: "auto.leader.rebalance.enable", Kind: Bool, Default: "false", Doc: "auto.leader.rebalance.enable: while some partition is led by another replica than its first (its preferred leader), the controller runs a preferred-leader election every leader.imbalance.check.interval.seconds (docs/operations.md); idemsim's default is false so that a run whose broker comes back keeps the leaders it had, Kafka's is true (-preset kafka-defaults sets it)"},
		{Key: "leader.imbalance.check.interval.seconds", Kind: Int, Default: "300", Unit: "s", Doc: "leader.imbalance.check.interval.seconds: with auto.leader.rebalance.enable, how long after a partition's leadership left its preferred replica the controller elects preferred leaders", Min: 1, Max: math.MaxInt32},

		// Producer (Kafka names, Kafka 3.0+ defaults).
		{Key: "enable.idempotence", Kind: Bool, Default: "true", Doc: "enable.idempotence; set from -idempotence"},
		{Key: "acks", Kind: Enum, Default: "all", Values: []string{"all", "-1", "0", "1"}, Doc: "acks"},
		{Key: "retries", Kind: Int, Default: "2147483647", Doc: "retries", Min: 0, Max: math.MaxInt32},
		{Key: "max.in.flight.requests.per.connection", Kind: Int, Default: "5", Unit: "requests", Doc: "max.in.flight.requests.per.connection", Min: 1, Max: 100},
		{Key: "max.in.flight.above.five", Kind: Bool, Default: "false", Doc: "what-if: allow idempotence with more than 5 in flight (Kafka refuses)"},
		{Key: "delivery.timeout.ms", Kind: Int, Default: "120000", Unit: "ms", Doc: "delivery.timeout.ms", Min: 0, Max: math.MaxInt32},
		{Key: "request.timeout.ms", Kind: Int, Default: "30000", Unit: "ms", Doc: "request.timeout.ms", Min: 1, Max: math.MaxInt32},
		{Key: "retry.backoff.ms", Kind: Int, Default: "100", Unit: "ms", Doc: "retry.backoff.ms", Min: 0, Max: math.MaxInt32},
		{Key: "retry.backoff.max.ms", Kind: Int, Default: "1000", Unit: "ms", Doc: "retry.backoff.max.ms", Min: 0, Max: math.MaxInt32},
		{Key: "reconnect.backoff.ms", Kind: Int, Default: "50", Unit: "ms", Doc: "reconnect.backoff.ms", Min: 0, Max: math.MaxInt32},
		{Key: "linger.ms", Kind: Int, Default: "5", Unit: "ms", Doc: "linger.ms (the profile: 0 before client 4.0, 5 from 4.0, KIP-1030)", Min: 0, Max: math.MaxInt32},
		{Key: "batch.size", Kind: Int, Default: "16", Unit: "records", Doc: "batch.size, counted in records", Min: 1, Max: 100_000},
		{Key: "transactional.id", Kind: String, Default: "", Doc: "transactional.id; empty for none"},
		{Key: "transaction.records", Kind: Int, Default: "0", Unit: "records", Doc: "records per transaction when the application runs transactions (needs transactional.id; 0: no transactions, the transactional.id only fences)", Min: 0, Max: 1_000_000},
		{Key: "transaction.timeout.ms", Kind: Int, Default: "60000", Unit: "ms", Doc: "transaction.timeout.ms: the coordinator aborts a transaction open this long", Min: 1, Max: 900000},
		{Key: "client.policy", Kind: Enum, Default: "java", Values: client.Policies(), Doc: "whose client behaviour to model"},

		// Historical defects (-bug sets these).
		{Key: "producer.whatif.fence_only", Kind: Bool, Default: "false", Doc: "what-if (Kafka refuses it): a transactional.id with transaction.records=0 only fences older instances and the producer sends outside transactions; Kafka's send() throws IllegalStateException there"},
		{Key: "producer.bug.metaflap_reset", Kind: Bool, Default: "false", Doc: "defect Z11 (librdkafka 1.9.0): a metadata flap restarts sequences at 0"},
		{Key: "producer.bug.reuse_expired_seq", Kind: Bool, Default: "false", Doc: "defect Z11f (franz-go #1217): an expired written batch frees its sequence numbers"},
		{Key: "producer.bug.txn_bump_in_txn", Kind: Bool, Default: "false", Doc: "defect Z17 (librdkafka #3575, fixed in 1.8.2): a transactional producer's OUT_OF_ORDER_SEQUENCE_NUMBER bumps the epoch through the coordinator inside the transaction, which the client believes still open (client.policy=librdkafka)"},
		{Key: "socket.nagle.disable", Kind: Bool, Default: "false", Doc: "librdkafka's socket.nagle.disable (client.policy=librdkafka only, true is refused with the others: the Java client and franz-go always set TCP_NODELAY): false, librdkafka's default before 2.10.0, holds a request written behind an unacknowledged one until the broker's acknowledgement; true sends each at once"},
		{Key: "producer.whatif.librdkafka_no_skip_bump", Kind: Bool, Default: "false", Doc: "what-if (librdkafka pull request #4972, unmerged): with client.policy=librdkafka, an OUT_OF_ORDER_SEQUENCE_NUMBER for a batch after the head only re-enqueues it, without the epoch bump every librdkafka release makes (issue #4953)"},
		{Key: "coordinator.bug.no_rotate", Kind: Bool, Default: "false", Doc: "what-if Z10: the coordinator does not rotate the producer id at an exhausted epoch"},
		{Key: "coordinator.bug.no_bump_on_timeout", Kind: Bool, Default: "false", Doc: "defect Z05b (KAFKA-6119): a transaction timeout aborts without bumping the epoch"},

		// Broker.
		{Key: "broker.window", Kind: Int, Default: "5", Unit: "batches", Doc: "batches cached per producer for duplicate detection (Kafka: 5)", Min: 1, Max: 1000},
		{Key: "broker.dedup", Kind: Bool, Default: "true", Doc: "what-if: false removes the dedup window (Redpanda <= 21.10)"},
		{Key: "broker.epoch.check", Kind: Bool, Default: "true", Doc: "what-if: false accepts batches of a lower epoch"},
		{Key: "broker.empty.partition.check", Kind: Bool, Default: "false", Doc: "what-if (KAFKA-15591, fixed after 4.1, apache/kafka pull request 23234): a never-written partition accepts an unknown producer only at sequence 0; every covered release (up to 4.1) has the hole, false"},
		{Key: "transaction.partition.verification.enable", Kind: Bool, Default: "true", Doc: "KIP-890 part 1: a partition verifies with the coordinator a transaction's first batch (the profile: on from broker 3.6)"},
		{Key: "transaction.abort.timed.out.transaction.cleanup.interval.ms", Kind: Int, Default: "10000", Unit: "ms", Doc: "how often the coordinator aborts timed-out transactions", Min: 1, Max: math.MaxInt32},
		{Key: "transactional.id.expiration.ms", Kind: Int, Default: "604800000", Unit: "ms", Doc: "how long a transactional id may stay idle (Empty or Complete*) before the coordinator forgets it; a producer that comes back then gets INVALID_PRODUCER_ID_MAPPING", Min: 1, Max: math.MaxInt32},
		{Key: "transaction.remove.expired.transaction.cleanup.interval.ms", Kind: Int, Default: "3600000", Unit: "ms", Doc: "how often the coordinator removes expired transactional ids", Min: 1, Max: math.MaxInt32},
		{Key: "broker.processing.time", Kind: Duration, Default: "0s", Doc: "time a server (broker or coordinator) takes to handle one request after reading it; requests of one connection are handled one at a time (Kafka's SocketServer), and a request read is handled to the end even if its connection breaks", Min: 0, Max: 3600e9},
		{Key: "broker.processing.spread", Kind: Duration, Default: "0s", Doc: "a uniform extra handling time below this, drawn per request from the server's own stream", Min: 0, Max: 3600e9},
		{Key: "broker.transient_error", Kind: Float, Default: "0", Unit: "probability", Doc: "probability that a batch is answered NOT_ENOUGH_REPLICAS (retriable, nothing appended)", MinF: 0, MaxF: 1},
		{Key: "partition.not_ready.batches", Kind: Int, Default: "0", Unit: "batches", Doc: "the first batches each partition answers NOT_LEADER_OR_FOLLOWER, as a freshly created partition does", Min: 0, Max: 1_000_000},
		{Key: "producer.id.expiration.check.interval.ms", Kind: Int, Default: "600000", Unit: "ms", Doc: "producer.id.expiration.check.interval.ms: how often expired producer state is removed", Min: 1, Max: math.MaxInt32},
		{Key: "app.mode", Kind: Enum, Default: "at-least-once", Values: []string{"at-least-once", "exactly-once", "exactly-once-v2", "exactly-once-groupid"}, Doc: "how an application carries its input across instances: at-least-once (a later instance sends again every record its older instances left unresolved); exactly-once, the pre-2.5 design (consume-transform-produce with one transactional.id per input partition, shared by the instances: transactions commit the input position, and a later instance fences the older one and resumes from the committed position; needs a transactional.id and transaction.records > 0); exactly-once-v2 (KIP-447, Kafka 2.5+: app.instances instances at once in a consumer group, each with its own transactional.id, committing their offsets with the consumer's group metadata, so the group coordinator fences a zombie by its generation; needs app.input=topic); exactly-once-groupid (the same with the deprecated sendOffsetsToTransaction(offsets, groupId): no group metadata, no generation check)"},
		{Key: "broker.bug.no_verification_guard", Kind: Bool, Default: "false", Doc: "defect KAFKA-14904 (a 3.6 pre-release): no verification sequence guard, so a later in-flight transactional batch can be appended ahead of an earlier one whose verification failed retriably"},
		{Key: "broker.restart.rebuild", Kind: Enum, Default: "log", Values: []string{"log", "none"}, Doc: "how a restarted broker rebuilds producer state: log (Kafka: snapshot plus log replay) or none (what-if: state lost, -bug Z08)"},
		{Key: "sequence.bits", Kind: Int, Default: "31", Unit: "bits", Doc: "width of sequence numbers (Kafka: 31, wrapping at 2147483647); with idempotence, 2^bits must exceed (broker.window + max.in.flight.requests.per.connection) * batch.size, so that no two batches in the window or in flight share sequences (narrower is outside Kafka's design: the run goes on with a configuration note saying so)", Min: 1, Max: 31},
		{Key: "epoch.bits", Kind: Int, Default: "16", Unit: "bits", Doc: "width of producer epochs, signed (Kafka: 16, epochs 0..32767; the coordinator rotates the producer id at 32766)", Min: 2, Max: 16},
		{Key: "coordinator.log.append.time", Kind: Duration, Default: "0s", Doc: "time a write to __transaction_state takes to replicate (acks=-1): the transition is pending meanwhile, its request waits, and the transactional id's other requests and verifications get CONCURRENT_TRANSACTIONS; a coordinator crash loses a write in flight; 0 writes in one step", Min: 0, Max: 3600e9},
		{Key: "coordinator.load.ms", Kind: Int, Default: "0", Unit: "ms", Doc: "in a replicated run with a transactional producer, how long a broker that becomes the leader of __transaction_state or __consumer_offsets loads it (TransactionStateManager.loadTransactionsForTxnTopicPartition): meanwhile its coordinator answers COORDINATOR_LOAD_IN_PROGRESS; Kafka's time grows with the partition's log, which the model does not size; 0 (idemsim's default) loads at once", Min: 0, Max: 3_600_000},
		{Key: "coordinator.next.pid", Kind: Int, Default: "1000", Doc: "first producer id the coordinator hands out (then +1 each)", Min: 0, Max: 1 << 62},
		{Key: "producer.id.expiration.ms", Kind: Int, Default: "86400000", Unit: "ms", Doc: "producer.id.expiration.ms", Min: 1, Max: math.MaxInt64 / int64(time.Millisecond)},
		{Key: "retention.ms", Kind: Int, Default: "-1", Unit: "ms", Doc: "retention.ms: the retention check deletes a log entry whose newest timestamp (the records' CreateTime) is more than this old, once it is below the high watermark, and moves the log start past it; -1 keeps everything (idemsim's default: Kafka's is 604800000, 7 days, which runs of minutes never reach)", Min: -1, Max: math.MaxInt64 / int64(time.Millisecond)},
		{Key: "retention.bytes", Kind: Int, Default: "-1", Unit: "offsets", Doc: "retention.bytes counted in offsets (a record or a marker each; byte sizes are not modelled): the retention check deletes the oldest log entries while the log keeps at least this many offsets without them; -1: no size limit (Kafka's default)", Min: -1, Max: math.MaxInt64},
		{Key: "log.retention.check.interval.ms", Kind: Int, Default: "300000", Unit: "ms", Doc: "log.retention.check.interval.ms: how often the brokers apply retention.ms and retention.bytes", Min: 1, Max: math.MaxInt32},

		// Network.
		{Key: "net.mode", Kind: Enum, Default: "tcp", Values: []string{"tcp", "datagram"}, Doc: "tcp: per-connection FIFO, a loss breaks the connection; datagram: independent loss, duplication, reordering"},
		{Key: "net.latency", Kind: Enum, Default: "lognormal", Values: []string{"constant", "uniform", "exponential", "lognormal"}, Doc: "one-way latency distribution"},
		{Key: "net.latency.base", Kind: Duration, Default: "500us", Doc: "minimum one-way latency", Min: 0, Max: 3600e9},
		{Key: "net.latency.spread", Kind: Duration, Default: "1ms", Doc: "latency scale above the base (uniform width, exponential mean, log-normal median)", Min: 0, Max: 3600e9},
		{Key: "net.latency.sigma", Kind: Float, Default: "0.5", Doc: "log-normal shape", MinF: 0, MaxF: 5},
		{Key: "net.latency.tail_prob", Kind: Float, Default: "0", Unit: "probability", Doc: "probability of a rare long delay", MinF: 0, MaxF: 1},
		{Key: "net.latency.tail", Kind: Duration, Default: "0s", Doc: "extra delay of a tail message", Min: 0, Max: 3600e9},
		{Key: "net.request_loss", Kind: Float, Default: "0", Unit: "probability", Doc: "probability that a request is lost", MinF: 0, MaxF: 1},
		{Key: "net.response_loss", Kind: Float, Default: "0", Unit: "probability", Doc: "probability that a response is lost", MinF: 0, MaxF: 1},
		{Key: "net.duplicate", Kind: Float, Default: "0", Unit: "probability", Doc: "probability that a message is delivered twice (datagram only)", MinF: 0, MaxF: 1},
		{Key: "net.reorder", Kind: Float, Default: "0", Unit: "probability", Doc: "probability that a message is held back by net.reorder.delay so later ones overtake it (datagram only)", MinF: 0, MaxF: 1},
		{Key: "net.reorder.delay", Kind: Duration, Default: "5ms", Doc: "extra delay of a held-back (reordered) message", Min: 0, Max: 3600e9},
		{Key: "net.disconnect_notice", Kind: Float, Default: "1", Unit: "probability", Doc: "tcp: probability that a producer learns of a broken connection one latency later (an RST) rather than at request.timeout.ms; never across a partition", MinF: 0, MaxF: 1},
		{Key: "net.server_loss", Kind: Float, Default: "0", Unit: "probability", Doc: "probability that a message between two servers (a marker write, a verification, their answers) is lost; net.request_loss and net.response_loss are the producers' links'", MinF: 0, MaxF: 1},
		{Key: "net.link.latency", Kind: String, Default: "", Doc: "per-link latency overrides, ';'-separated 'FROM>TO DIST key=value...' with keys base, spread, sigma, tail_prob, tail, e.g. 'p1>b1 constant base=5ms; b1>p1 uniform base=1ms spread=4ms'"},

		// Faults (see docs/plans.md).
		{Key: "fault.realized", Kind: Bool, Default: "false", Doc: "replaying a realized plan (docs/explain.md): the random loss sources still draw but lose nothing; the plan's drops and rejects stand for their losses"},
		{Key: "fault.count", Kind: Int, Default: "0", Unit: "faults", Doc: "faults the seed's generated fault plan draws (a pause, a crash+restart, a partition+heal count one each)", Min: 0, Max: 10_000},
		{Key: "fault.kinds", Kind: String, Default: "all", Doc: "fault kinds the generator may draw: a comma list of pause, crash, partition, oneway, drop, drift, stall, delete-records, shutdown, elect-preferred, reassign, slow-poll, mute-heartbeat; all is the first six (stall, delete-records, and shutdown, elect-preferred and reassign, operator actions in a replicated world, and slow-poll and mute-heartbeat, faults of a group application's members, are named explicitly, e.g. all,stall, so that earlier seeds keep their plans)"},
		{Key: "fault.window", Kind: Duration, Default: "0s", Doc: "generated faults start in [0, window); 0 = the workload's length plus request.timeout.ms", Min: 0, Max: 1e15},
		{Key: "fault.end", Kind: Duration, Default: "0s", Doc: "end of the fault phase (plan 'end'); then faults stop, the network heals, processes resume; 0 = last send plus delivery.timeout.ms", Min: 0, Max: 1e15},
		{Key: "fault.max_duration", Kind: Duration, Default: "10s", Doc: "longest generated pause, partition or crash downtime", Min: 1e6, Max: 1e15},
		{Key: "fault.producer.resend", Kind: Bool, Default: "false", Doc: "after a producer instance crash and restart, the application sends its unresolved records again (else they are abandoned)"},
	}...)
}
