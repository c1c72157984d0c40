package model

import "strconv"

// The consumer's requests (model/consumer): Fetch with replica id -1 and an
// isolation level, ListOffsets, OffsetCommit, and OffsetFetch by partition.
// Citations name apache/kafka files and methods (no lines): RM is
// core/src/main/scala/kafka/server/ReplicaManager.scala, ULOG
// core/src/main/scala/kafka/log/UnifiedLog.scala.

// DestConsumer is the consumer node's destination index. Nothing sends
// to it (it is only ever the client end of its connections); a
// registered node kind needs one.
const DestConsumer int32 = -4

// ConsumerFetchRequest is a consumer's Fetch of one partition (Fetch
// with replica id -1, built by the consumer's AbstractFetch
// .prepareFetchRequests): from FetchOffset, bounded by the high
// watermark (READ_UNCOMMITTED) or the last stable offset
// (READ_COMMITTED) (RM#readFromLog, FetchIsolation). Byte limits are
// not modelled; the broker returns at most max entries of its own
// (BrokerConfig.ConsumerFetchMaxEntries).
type ConsumerFetchRequest struct {
	CorrelationID int64
	Partition     int32
	FetchOffset   int64
	// CurrentLeaderEpoch is the leader epoch the consumer's metadata
	// gives (KIP-320), -1 when it has none: then no epoch check.
	CurrentLeaderEpoch int32
	// ReadCommitted is isolation.level=read_committed.
	ReadCommitted bool
	// LeaderHints marks Fetch v16 or later, which the Java consumer sends
	// from its 3.7 release on (KIP-951): a broker of 3.7 or later then
	// fills [ConsumerFetchResponse.HasCurrentLeader] on
	// NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH
	// (KafkaApis.handleFetchRequest, "versionId >= 16").
	LeaderHints bool
}

// AppendDescription appends "CFetch#4 p0 off=105 e=1 rc".
func (r *ConsumerFetchRequest) AppendDescription(b []byte) []byte {
	b = append(b, "CFetch#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " p"...)
	b = strconv.AppendInt(b, int64(r.Partition), 10)
	b = append(b, " off="...)
	b = strconv.AppendInt(b, r.FetchOffset, 10)
	b = append(b, " e="...)
	b = strconv.AppendInt(b, int64(r.CurrentLeaderEpoch), 10)
	if r.ReadCommitted {
		b = append(b, " rc"...)
	} else {
		b = append(b, " ru"...)
	}
	return b
}

// AbortedTransaction is one entry of a fetch response's aborted
// transactions (FetchResponseData.AbortedTransaction): the producer id
// and the first offset of a transaction an ABORT marker closed.
type AbortedTransaction struct {
	PID         ProducerID
	FirstOffset int64
}

// ConsumerFetchResponse answers a [ConsumerFetchRequest].
type ConsumerFetchResponse struct {
	CorrelationID int64
	Partition     int32
	FetchOffset   int64
	// Err is NONE, NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH,
	// UNKNOWN_LEADER_EPOCH or OFFSET_OUT_OF_RANGE.
	Err ErrCode
	// HighWatermark, LastStableOffset and LogStartOffset are the
	// leader's when it served the fetch (-1 on an error).
	HighWatermark, LastStableOffset, LogStartOffset int64
	// LeaderEpoch is the answering leader's own epoch, -1 from a broker
	// that does not lead the partition (for the epoch check; not the
	// hint below).
	LeaderEpoch int32
	// HasCurrentLeader marks KIP-951's CurrentLeader hint (Fetch v16,
	// Kafka 3.7): on NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH, the
	// partition's leader (a broker index, -1 for none) and its epoch (-1
	// for none) as the answering broker knows them.
	HasCurrentLeader                  bool
	CurrentLeader, CurrentLeaderEpoch int32
	// Entries are the log entries from the one holding FetchOffset up to
	// the isolation's bound, markers included, as the log holds them.
	Entries []LogEntry
	// Aborted are, for read_committed, the aborted transactions that
	// overlap the entries (ULOG#read with FetchIsolation TXN_COMMITTED,
	// TransactionIndex.collectAbortedTxns); nil for read_uncommitted.
	Aborted []AbortedTransaction
}

// AppendDescription appends "CFetchResp#4 p0 NONE hw=10 lso=8 n=2 [5..7] aborted=1",
// or on an error with a leader hint "CFetchResp#4 p0 NOT_LEADER_OR_FOLLOWER leader=b2 e=1".
func (r *ConsumerFetchResponse) AppendDescription(b []byte) []byte {
	b = append(b, "CFetchResp#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " p"...)
	b = strconv.AppendInt(b, int64(r.Partition), 10)
	b = append(b, ' ')
	b = append(b, r.Err.String()...)
	if r.Err != ErrNone {
		if r.HasCurrentLeader {
			b = append(b, " leader="...)
			if r.CurrentLeader < 0 {
				b = append(b, '-')
			} else {
				b = strconv.AppendInt(append(b, 'b'), int64(r.CurrentLeader)+1, 10)
			}
			b = append(b, " e="...)
			b = strconv.AppendInt(b, int64(r.CurrentLeaderEpoch), 10)
		}
		return b
	}
	b = append(b, " hw="...)
	b = strconv.AppendInt(b, r.HighWatermark, 10)
	b = append(b, " lso="...)
	b = strconv.AppendInt(b, r.LastStableOffset, 10)
	b = append(b, " n="...)
	b = strconv.AppendInt(b, int64(len(r.Entries)), 10)
	if n := len(r.Entries); n > 0 {
		b = append(b, " ["...)
		b = strconv.AppendInt(b, r.Entries[0].FirstOffset, 10)
		b = append(b, ".."...)
		b = strconv.AppendInt(b, r.Entries[n-1].LastOffset, 10)
		b = append(b, ']')
	}
	if len(r.Aborted) > 0 {
		b = append(b, " aborted="...)
		b = strconv.AppendInt(b, int64(len(r.Aborted)), 10)
	}
	return b
}

// ListOffsets timestamps (ListOffsetsRequest.EARLIEST_TIMESTAMP,
// LATEST_TIMESTAMP).
const (
	EarliestTimestamp int64 = -2
	LatestTimestamp   int64 = -1
)

// ListOffsetsRequest is a consumer's ListOffsets for one partition, sent
// to its leader to reset a position (auto.offset.reset; the consumer's
// OffsetFetcher.resetPositionsIfNeeded). Latest is the high watermark
// for read_uncommitted and the last stable offset for read_committed
// (KafkaApis.handleListOffsetRequest, RM#fetchOffsetForTimestamp).
type ListOffsetsRequest struct {
	CorrelationID      int64
	Partition          int32
	Timestamp          int64
	CurrentLeaderEpoch int32
	ReadCommitted      bool
}

// AppendDescription appends "ListOffsets#3 p0 earliest".
func (r *ListOffsetsRequest) AppendDescription(b []byte) []byte {
	b = append(b, "ListOffsets#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " p"...)
	b = strconv.AppendInt(b, int64(r.Partition), 10)
	if r.Timestamp == EarliestTimestamp {
		return append(b, " earliest"...)
	}
	return append(b, " latest"...)
}

// ListOffsetsResponse answers a [ListOffsetsRequest].
type ListOffsetsResponse struct {
	CorrelationID int64
	Partition     int32
	Err           ErrCode
	Offset        int64
	LeaderEpoch   int32
}

// AppendDescription appends "ListOffsetsResp#3 p0 NONE offset=0".
func (r *ListOffsetsResponse) AppendDescription(b []byte) []byte {
	b = append(b, "ListOffsetsResp#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " p"...)
	b = strconv.AppendInt(b, int64(r.Partition), 10)
	b = append(b, ' ')
	b = append(b, r.Err.String()...)
	b = append(b, " offset="...)
	return strconv.AppendInt(b, r.Offset, 10)
}

// OffsetCommitRequest is a consumer's OffsetCommit (outside any
// transaction) to the group coordinator: Offsets[i] is the next offset
// to consume of Partitions[i].
type OffsetCommitRequest struct {
	CorrelationID int64
	GroupID       string
	Partitions    []int32
	Offsets       []int64
	// GroupMetadata is the committing member's membership; the zero value
	// is none (generation -1), a simple consumer's commit.
	GroupMetadata
	// Coord is simulation metadata, never on the wire: the broker the
	// consumer sent the request to, as [CoordTag] of its FindCoordinator
	// answer (0: the coordinator's own node, or no lookup).
	Coord int32
}

// AppendDescription appends "OffsetCommit#5 group=r1 p0=10 p1=4", then
// " member=c-1 gen=3" when the request carries group metadata.
func (r *OffsetCommitRequest) AppendDescription(b []byte) []byte {
	b = append(b, "OffsetCommit#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " group="...)
	b = append(b, r.GroupID...)
	for i, p := range r.Partitions {
		b = append(b, " p"...)
		b = strconv.AppendInt(b, int64(p), 10)
		b = append(b, '=')
		b = strconv.AppendInt(b, r.Offsets[i], 10)
	}
	return appendGroupMetadata(b, r.GroupMetadata)
}

// OffsetCommitResponse answers an [OffsetCommitRequest].
type OffsetCommitResponse struct {
	CorrelationID int64
	Err           ErrCode
}

// AppendDescription appends "OffsetCommitResp#5 NONE".
func (r *OffsetCommitResponse) AppendDescription(b []byte) []byte {
	b = append(b, "OffsetCommitResp#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, ' ')
	return append(b, r.Err.String()...)
}

// ConsumerOffsetFetchRequest is a consumer's OffsetFetch of its group's
// committed offsets for Partitions (require_stable, KIP-447).
type ConsumerOffsetFetchRequest struct {
	CorrelationID int64
	GroupID       string
	Partitions    []int32
	// RequireStable is OffsetFetch v7's require_stable (KIP-447), which
	// the Java consumer always sets (ConsumerCoordinator
	// .sendOffsetFetchRequest): a partition with a transactional commit
	// still pending is answered UNSTABLE_OFFSET_COMMIT. idemsim's
	// consumers set it in a group application (consumer.Config
	// .RequireStable), the only one whose partitions' offsets are
	// committed in transactions; the trace line then says so.
	RequireStable bool
	// Coord is simulation metadata, never on the wire: the broker the
	// consumer sent the request to, as [CoordTag] of its FindCoordinator
	// answer (0: the coordinator's own node, or no lookup).
	Coord int32
}

// AppendDescription appends "COffsetFetch#1 group=r1", then
// " require_stable" when set.
func (r *ConsumerOffsetFetchRequest) AppendDescription(b []byte) []byte {
	b = append(b, "COffsetFetch#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " group="...)
	b = append(b, r.GroupID...)
	if r.RequireStable {
		b = append(b, " require_stable"...)
	}
	return b
}

// ConsumerOffsetFetchResponse answers a [ConsumerOffsetFetchRequest]:
// Offsets[i] is Partitions[i]'s committed offset, -1 for none.
type ConsumerOffsetFetchResponse struct {
	CorrelationID int64
	Err           ErrCode
	Offsets       []int64
}

// AppendDescription appends "COffsetFetchResp#1 NONE [10 -1]".
func (r *ConsumerOffsetFetchResponse) AppendDescription(b []byte) []byte {
	b = append(b, "COffsetFetchResp#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, ' ')
	b = append(b, r.Err.String()...)
	b = append(b, " ["...)
	for i, o := range r.Offsets {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, o, 10)
	}
	return append(b, ']')
}
