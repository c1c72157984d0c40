package model

import "strconv"

// Follower Fetch. Citations are to
// apache/kafka@1eb7644349cb: core/src/main/scala/kafka/server/
// RemoteLeaderEndPoint.scala (RLE), ReplicaManager.scala (RM),
// AbstractFetcherThread.scala (AFT) and core/src/main/scala/kafka/cluster/
// Partition.scala (P).

// FetchRequest is a follower's Fetch for one partition (RLE#buildFetch:179):
// one request outstanding per follower (AFT#doWork:110). Byte limits are
// not modelled (MinBytes = 1: any record answers).
type FetchRequest struct {
	// CorrelationID numbers the follower's fetches; the response echoes it.
	CorrelationID int64
	// ReplicaID is the follower's broker index.
	ReplicaID int32
	Partition int32
	// FetchOffset is the follower's log end offset.
	FetchOffset int64
	// CurrentLeaderEpoch is the leader epoch the follower believes in.
	CurrentLeaderEpoch int32
	// LastFetchedEpoch is the epoch of the follower's last batch, or
	// UndefinedEpoch when it has none (then no divergence check,
	// P#readRecords:1517).
	LastFetchedEpoch int32
	// MaxWaitMs is replica.fetch.wait.max.ms: how long the leader may park
	// a fetch with nothing to return (RM#fetchMessages:1690).
	MaxWaitMs int32
}

// AppendDescription appends "Fetch#4 r2 p0 off=105 e=1 last=0".
func (r *FetchRequest) AppendDescription(b []byte) []byte {
	b = append(b, "Fetch#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " r"...)
	b = strconv.AppendInt(b, int64(r.ReplicaID), 10)
	b = append(b, " p"...)
	b = strconv.AppendInt(b, int64(r.Partition), 10)
	b = append(b, " off="...)
	b = strconv.AppendInt(b, r.FetchOffset, 10)
	b = append(b, " e="...)
	b = strconv.AppendInt(b, int64(r.CurrentLeaderEpoch), 10)
	b = append(b, " last="...)
	b = strconv.AppendInt(b, int64(r.LastFetchedEpoch), 10)
	return b
}

// FetchResponse answers a [FetchRequest] (P#fetchRecords:1428,
// P#readRecords:1517).
type FetchResponse struct {
	CorrelationID int64
	Partition     int32
	// Err is NONE, NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH,
	// UNKNOWN_LEADER_EPOCH or OFFSET_OUT_OF_RANGE (RM#readFromLog:1781,
	// P#readRecords:1517).
	Err ErrCode
	// HighWatermark is the leader's high watermark captured before this fetch
	// was served (P#readRecords:1517): it excludes the fetch's own effect.
	HighWatermark int64
	// LeaderEpoch is the leader's current epoch (the response's
	// CurrentLeader hint on an epoch error).
	LeaderEpoch int32
	// DivergingEpoch and DivergingEndOffset are set (not
	// UndefinedEpoch/UndefinedEpochOffset) when the follower's log
	// diverges from the leader's (P#readRecords:1517): the leader's
	// endOffsetFor(LastFetchedEpoch). Batches is then empty.
	DivergingEpoch     int32
	DivergingEndOffset int64
	// Batches are the entries from FetchOffset to the leader's log end.
	Batches []ReplicaBatch
	// LogStartOffset is the leader's log start offset, which the
	// follower's own follows (ReplicaFetcherThread.processPartitionData).
	LogStartOffset int64
}

// Diverging reports whether the response carries a diverging epoch.
func (r *FetchResponse) Diverging() bool { return r.DivergingEndOffset != UndefinedEpochOffset }

// AppendDescription appends "FetchResp#4 p0 NONE hw=100 e=1 n=2 [105..109]"
// or "FetchResp#4 p0 NONE hw=100 e=1 diverging=0@100".
func (r *FetchResponse) AppendDescription(b []byte) []byte {
	b = append(b, "FetchResp#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " p"...)
	b = strconv.AppendInt(b, int64(r.Partition), 10)
	b = append(b, ' ')
	b = append(b, r.Err.String()...)
	if r.Err != ErrNone {
		return b
	}
	b = append(b, " hw="...)
	b = strconv.AppendInt(b, r.HighWatermark, 10)
	b = append(b, " e="...)
	b = strconv.AppendInt(b, int64(r.LeaderEpoch), 10)
	if r.LogStartOffset > 0 {
		b = append(b, " start="...)
		b = strconv.AppendInt(b, r.LogStartOffset, 10)
	}
	if r.Diverging() {
		b = append(b, " diverging="...)
		b = strconv.AppendInt(b, int64(r.DivergingEpoch), 10)
		b = append(b, '@')
		return strconv.AppendInt(b, r.DivergingEndOffset, 10)
	}
	b = append(b, " n="...)
	b = strconv.AppendInt(b, int64(len(r.Batches)), 10)
	if n := len(r.Batches); n > 0 {
		b = append(b, " ["...)
		b = strconv.AppendInt(b, r.Batches[0].Entry.FirstOffset, 10)
		b = append(b, ".."...)
		b = strconv.AppendInt(b, r.Batches[n-1].Entry.LastOffset, 10)
		b = append(b, ']')
	}
	return b
}

// ReplicaBatch is one log entry as a leader serves it to a follower: the
// entry and the leader epoch it was written in (the batch header's
// partitionLeaderEpoch, P#appendRecordsToLeader:1375).
type ReplicaBatch struct {
	Entry       LogEntry
	LeaderEpoch int32
}

// UndefinedEpoch and UndefinedEpochOffset are Kafka's UNDEFINED_EPOCH and
// UNDEFINED_EPOCH_OFFSET: "no such epoch" in an epoch-cache answer.
const (
	UndefinedEpoch       int32 = -1
	UndefinedEpochOffset int64 = -1
)
