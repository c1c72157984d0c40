package input

import (
	"fmt"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/client"
	"github.com/idemsim/idemsim/model/consumer"
	"github.com/idemsim/idemsim/model/storage"
)

// Layout places the applications' input topics after the output topic's
// partitions: application a's input partition i (0-based) is partition
// Base + a*Parts + i among the brokers' partitions, led round robin like
// the output's. Application a's input record n (0-based, n < Records) is
// the record a:n, in its input partition n mod Parts, at offset n div
// Parts, after Aborted records and their marker in partition 0. The
// application turns it into its output record a:n, so that the output's
// checks (duplicates, loss, exactly once) work by record id.
type Layout struct {
	// Base is the first input partition: the output partitions' count.
	Base int32
	// Parts is input.partitions, 1..64; Apps the applications.
	Parts, Apps int32
	// Records is each application's input records (records).
	Records int64
	// Aborted is input.aborted: records of aborted transactions
	// written to each application's input partition 0 first.
	Aborted int64
	// Seq is the sequence space (sequence.bits): one aborted
	// transaction holds at most its 2^bits numbers, so Aborted records
	// are ceil(Aborted / 2^bits) transactions of their own producers.
	Seq model.SeqSpace
}

// abortedTxns returns how many aborted transactions hold the Aborted
// records: one unless the sequence space is narrower than Aborted.
func (l Layout) abortedTxns() int64 {
	per := int64(l.Seq.Max()) + 1
	return (l.Aborted + per - 1) / per
}

// abortedPID is the producer id of the aborted transaction written before
// the run: above any the coordinator hands out in a run.
const abortedPID model.ProducerID = 1 << 62

// Leaders returns the leader broker of every partition, output then
// input, on brokers brokers: out, then round robin on from there.
func (l Layout) Leaders(out []int32, brokers int) []int32 {
	ls := append([]int32(nil), out...)
	for p := len(out); p < int(l.Base+l.Apps*l.Parts); p++ {
		ls = append(ls, int32(p%brokers))
	}
	return ls
}

// Partitions returns application app's input partitions.
func (l Layout) Partitions(app int32) []int32 {
	ps := make([]int32, l.Parts)
	for i := range ps {
		ps[i] = l.Base + app*l.Parts + int32(i)
	}
	return ps
}

// skip is the offset of the first input record in input partition i.
func (l Layout) skip(i int32) int64 {
	if i == 0 && l.Aborted > 0 {
		return l.Aborted + l.abortedTxns() // the records and an ABORT marker each transaction
	}
	return 0
}

// Positions returns the positions at which application app's consumer
// resumes when the group's committed position is next (the next record
// number, -1: none): one partition's offset of record next, or its end.
// Only with one input partition (exactly once: the offset commit carries
// one offset per group).
func (l Layout) Positions(next int64) []int64 {
	return []int64{l.skip(0) + min(max(next, 0), l.Records)}
}

// End returns the log end offset of an application's input partition i.
func (l Layout) End(i int32) int64 {
	return l.skip(i) + (l.Records-int64(i)+int64(l.Parts)-1)/int64(l.Parts)
}

// fill writes application app's input partition i (0-based) into p, as
// produced and committed before the run: the aborted transaction first
// (partition 0, with input.aborted), then the records, in one batch
// without a producer id. Without replication the high watermark is the
// log end, so every record is committed; a replica is committed by
// Fill's preload.
func (l Layout) fill(p *storage.Partition, app, i int32) {
	part := l.Base + app*l.Parts + i
	if i == 0 && l.Aborted > 0 {
		// A batch numbers at most the sequence space's 2^bits records
		// (sequence.bits may be 1), and a producer's batches in the
		// broker's window must not share sequences: each 2^bits
		// records are one producer's one-batch transaction, and the
		// ABORT markers follow them all.
		per := int64(l.Seq.Max()) + 1
		for t := range l.abortedTxns() {
			n := min(per, l.Aborted-t*per)
			b := model.Batch{PID: abortedPID + model.ProducerID(t), Partition: part, FirstSeq: 0, LastSeq: int32(n - 1), Transactional: true, Records: make([]model.Record, n)}
			for k := range b.Records {
				id := model.RecordID{App: app, N: l.Records + t*per + int64(k)}
				b.Records[k] = model.Record{ID: id, Digest: model.Digest(id, 0), Partition: part}
			}
			mustAppend(p.Append(0, b))
		}
		for t := range l.abortedTxns() {
			mustAppend(p.AppendMarker(0, abortedPID+model.ProducerID(t), 0, 0, model.MarkerAbort))
		}
	}
	b := model.Batch{PID: model.NoProducerID, Partition: part, FirstSeq: model.NoSequence, LastSeq: model.NoSequence, Epoch: model.NoEpoch}
	for n := int64(i); n < l.Records; n += int64(l.Parts) {
		id := model.RecordID{App: app, N: n}
		b.Records = append(b.Records, model.Record{ID: id, Digest: model.Digest(id, 0), Partition: part})
	}
	if len(b.Records) > 0 {
		mustAppend(p.Append(0, b))
	}
}

func mustAppend(r model.AppendResult) {
	if r.Err != model.ErrNone {
		panic(fmt.Sprintf("input: writing the input topic: %v %s", r.Err, r.Reason))
	}
}

// Loop is how an application commits its input's offsets.
type Loop uint8

const (
	// ExactlyOnce: in its transactions (TxnOffsetCommit); the
	// application positions its consumer at the offsets they committed.
	ExactlyOnce Loop = iota
	// AtLeastOnce: with commitSync once a poll's records are
	// acknowledged (consumer.Config.AppCommits).
	AtLeastOnce
	// AtLeastOnceTxn: with transactions, commitSync after each
	// commitTransaction, of the offsets after the transaction's records
	// (consumer.Config.AppOffsets, Committed).
	AtLeastOnceTxn
)

// Consumer returns application app's consumer configuration: its group
// (the one its transactions commit to), its input partitions assigned,
// read_committed, earliest, one record a poll every interval (the
// application's send.interval.ms, at least 1 ms), no auto-commit; loop
// says who commits what. At least once it fetches the group's committed
// offsets at its start. brokers is the brokers a replicated world's
// consumer asks for metadata when a leader moves; 0 without replication,
// where the leaders never move and the consumer asks for none.
func (l Layout) Consumer(app int32, leaders []int32, brokers int, loop Loop, interval time.Duration) consumer.Config {
	return consumer.Config{GroupID: model.GroupOf(app), Partitions: l.Partitions(app), Leaders: leaders, Brokers: brokers,
		ReadCommitted: true, MaxPollRecords: 1, Commits: loop != ExactlyOnce, AppCommits: loop == AtLeastOnce, AppOffsets: loop == AtLeastOnceTxn,
		Reset: consumer.ResetEarliest, PollInterval: max(interval, time.Millisecond), FetchMaxWait: 500 * time.Millisecond,
		RequestTimeout: 30 * time.Second, RetryBackoff: 100 * time.Millisecond, Patience: time.Second}
}

// Committed returns, per input partition of the application, the offset
// after the last of records (its input record numbers, as a committed
// transaction lists them) in that partition, -1 for a partition with
// none: the offsets an at-least-once transactional loop commits.
func (l Layout) Committed(records []model.RecordID) []int64 {
	offs := make([]int64, l.Parts)
	for i := range offs {
		offs[i] = -1
	}
	for _, id := range records {
		i := int32(id.N % int64(l.Parts))
		offs[i] = max(offs[i], l.skip(i)+id.N/int64(l.Parts)+1)
	}
	return offs
}

// Done reports whether the consumer c has read application app's whole
// input: every position at its partition's end; a group member's, the
// partitions it holds (at least one).
func (l Layout) Done(c *consumer.Consumer, app int32) bool {
	if c.Grouped() {
		parts := c.Assigned()
		for _, p := range parts {
			if c.Position(p) < l.End(p-l.Base-app*l.Parts) {
				return false
			}
		}
		return len(parts) > 0
	}
	for i := range l.Parts {
		if c.Position(l.Base+app*l.Parts+i) < l.End(i) {
			return false
		}
	}
	return true
}

// Fill writes every application's input partitions into every copy of
// them: preload hands write one broker's copy of partition p, if it has
// one (broker.Broker.Preload, which commits a replica's in leader epoch
// 0); it is called for each broker in turn.
func (l Layout) Fill(preload func(p int32, write func(*storage.Partition))) {
	for a := range l.Apps {
		for i := range l.Parts {
			preload(l.Base+a*l.Parts+i, func(p *storage.Partition) { l.fill(p, a, i) })
		}
	}
}

// GroupProducer sets instance index's producer configuration pc for a
// group application (app.mode=exactly-once-v2, exactly-once-groupid):
// its own transactional.id, the configured one and "-index" (KIP-447:
// one transactional.id per instance), and, with transactions, the
// application's group and its input partitions, whose offsets each
// transaction commits.
func (l Layout) GroupProducer(pc *client.ProducerConfig, app int32, index int) {
	if pc.TransactionalID == "" || pc.TransactionRecords == 0 {
		return
	}
	pc.TransactionalID += "-" + strconv.Itoa(index)
	pc.GroupID = model.GroupOf(app)
	pc.InputParts, pc.InputBase, pc.InputSkip0 = l.Parts, l.Base+app*l.Parts, l.skip(0)
}

// GroupConsumer makes cfg a group member's: the classic protocol with
// client.id name, session.timeout.ms session, subscribed to the
// application's input partitions, require_stable, and the application's
// onPartitionsRevoked committing its open transaction. Without
// transactions (txn false: at least once, or no idempotence) the
// consumer commits its positions itself, Kafka's default
// enable.auto.commit=true every auto.commit.interval.ms (commit, the
// commit.interval.ms parameter; 5 s by default) and before a rejoin, or,
// with commit 0, the application commits them with commitSync after each
// poll whose records are all acknowledged.
func (l Layout) GroupConsumer(cfg *consumer.Config, name string, session time.Duration, txn bool, commit time.Duration) {
	cfg.Protocol, cfg.ClientID, cfg.SessionTimeout = consumer.ProtocolClassic, name, session
	cfg.TopicPartitions, cfg.Partitions = cfg.Partitions, nil
	cfg.RequireStable, cfg.AppRevoke = true, true
	switch {
	case txn:
	case commit == 0:
		// The at-least-once loop: poll, produce, and commitSync once the
		// poll's records are acknowledged (AppCommits), with the
		// group metadata; no auto-commit.
		cfg.AppOffsets, cfg.AppCommits, cfg.AutoCommit = false, true, false
	default:
		cfg.AppOffsets, cfg.AppCommits, cfg.AutoCommit, cfg.AutoCommitInterval = false, false, true, commit
	}
}

// Skip0 is the offset of the first input record of an application's
// input partition 0 (after input.aborted's records and markers).
func (l Layout) Skip0() int64 { return l.skip(0) }
