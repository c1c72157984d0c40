package broker

import "github.com/idemsim/idemsim/model"

// A consumer's requests to a partition leader: Fetch with replica id -1
// and ListOffsets. apache/kafka: core/src/main/scala/kafka/server/
// ReplicaManager.scala (readFromLog, fetchOffsetForTimestamp),
// core/src/main/scala/kafka/cluster/Partition.scala (fetchRecords,
// checkCurrentLeaderEpoch), core/src/main/scala/kafka/log/
// UnifiedLog.scala (read). A consumer's fetch is answered at once, with
// what there is (no long poll: fetch.max.wait.ms is the consumer's wait
// between empty fetches instead), and changes no replica state.

// leaderEpochCheck is Partition.checkCurrentLeaderEpoch for partition
// part: NOT_LEADER_OR_FOLLOWER when this broker does not lead it,
// FENCED_LEADER_EPOCH for an older epoch than the leader's,
// UNKNOWN_LEADER_EPOCH for a newer one; -1 asks for no check. It
// returns the error and the leader's epoch (0 without replication).
func (b *Broker) leaderEpochCheck(part, epoch int32) (model.ErrCode, int32) {
	if !b.Leads(part) || b.Partition(part) == nil {
		return model.ErrNotLeaderOrFollower, -1
	}
	cur := int32(0)
	if r := b.rep(part); r != nil {
		cur = r.ls.State().LeaderEpoch
	}
	switch {
	case epoch >= 0 && epoch < cur:
		return model.ErrFencedLeaderEpoch, cur
	case epoch > cur:
		return model.ErrUnknownLeaderEpoch, cur
	}
	return model.ErrNone, cur
}

// consumerFetch answers a consumer's Fetch: the entries from the one
// holding the fetch offset up to the high watermark (read_uncommitted)
// or the last stable offset (read_committed), with, for read_committed,
// the aborted transactions that overlap them. An offset below the log
// start or beyond the log end is OFFSET_OUT_OF_RANGE
// (UnifiedLog.read: "Received request for offset ... but we only have
// log segments starting from ..."); one between the bound and the log
// end reads nothing.
func (b *Broker) consumerFetch(from model.Peer, m *model.ConsumerFetchRequest) {
	resp := &model.ConsumerFetchResponse{CorrelationID: m.CorrelationID, Partition: m.Partition, FetchOffset: m.FetchOffset,
		HighWatermark: -1, LastStableOffset: -1, LogStartOffset: -1}
	resp.Err, resp.LeaderEpoch = b.leaderEpochCheck(m.Partition, m.CurrentLeaderEpoch)
	if (resp.Err == model.ErrNotLeaderOrFollower || resp.Err == model.ErrFencedLeaderEpoch) && m.LeaderHints && b.sendsLeaderHints() {
		b.fillFetchLeaderHint(resp)
	}
	if resp.Err == model.ErrNone {
		p := b.Partition(m.Partition)
		if m.FetchOffset < p.LogStartOffset() || m.FetchOffset > p.LogEndOffset() {
			resp.Err = model.ErrOffsetOutOfRange
		} else {
			resp.HighWatermark, resp.LastStableOffset, resp.LogStartOffset = p.HighWatermark(), p.LastStableOffset(), p.LogStartOffset()
			upper := resp.HighWatermark
			if m.ReadCommitted {
				upper = resp.LastStableOffset
			}
			resp.Entries = p.ReadEntries(m.FetchOffset, upper, b.cfg.ConsumerFetchMaxEntries, nil)
			if n := len(resp.Entries); m.ReadCommitted && n > 0 {
				resp.Aborted = p.AbortedOverlapping(m.FetchOffset, resp.Entries[n-1].LastOffset+1, nil)
			}
		}
	}
	b.Outs = append(b.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: resp})
}

// listOffsets answers a consumer's ListOffsets: the earliest offset (the
// log start: UnifiedLog.fetchOffsetByTimestamp's EARLIEST_TIMESTAMP) or the latest, which is the high watermark for
// read_uncommitted and the last stable offset for read_committed.
func (b *Broker) listOffsets(from model.Peer, m *model.ListOffsetsRequest) {
	resp := &model.ListOffsetsResponse{CorrelationID: m.CorrelationID, Partition: m.Partition, Offset: -1}
	resp.Err, resp.LeaderEpoch = b.leaderEpochCheck(m.Partition, m.CurrentLeaderEpoch)
	if resp.Err == model.ErrNone {
		p := b.Partition(m.Partition)
		switch {
		case m.Timestamp == model.EarliestTimestamp:
			resp.Offset = p.LogStartOffset()
		case m.ReadCommitted:
			resp.Offset = p.LastStableOffset()
		default:
			resp.Offset = p.HighWatermark()
		}
	}
	b.Outs = append(b.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: resp})
}
