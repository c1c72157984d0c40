package coordinator

import (
	"slices"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// A consumer's offsets outside transactions: OffsetCommit stores them,
// OffsetFetch (require_stable) reads them back. apache/kafka:
// group-coordinator/src/main/java/org/apache/kafka/coordinator/group/
// OffsetMetadataManager.java (commitOffset, fetchOffsets). A commit with
// group metadata is checked against the classic group
// (validateOffsetCommit, classic_group.go); one without is accepted as a
// simple (manually assigned) consumer's is, unless the group has members.

// groupPartition keys a committed consumer offset.
type groupPartition struct {
	group string
	part  int32
}

// offsetCommit stores m's offsets and answers NONE, or answers the
// group's refusal.
func (g *GroupCoordinator) offsetCommit(now sim.Time, from model.Peer, m *model.OffsetCommitRequest) {
	if len(g.groups) > 0 || !m.GroupMetadata.None() {
		if err := g.validateOffsetCommit(now, m.GroupID, m.GroupMetadata, false); err != model.ErrNone {
			g.Outs = append(g.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: &model.OffsetCommitResponse{CorrelationID: m.CorrelationID, Err: err}})
			return
		}
	}
	for i, p := range m.Partitions {
		g.consumed[groupPartition{m.GroupID, p}] = m.Offsets[i]
	}
	g.Outs = append(g.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: &model.OffsetCommitResponse{CorrelationID: m.CorrelationID}})
}

// consumerOffsetFetch answers m with each partition's committed offset,
// -1 for none. With require_stable, a partition that a transaction's
// TxnOffsetCommit left pending makes the answer UNSTABLE_OFFSET_COMMIT
// (apache/kafka 4.0, group-coordinator/src/main/java/org/apache/kafka/
// coordinator/group/OffsetMetadataManager.java, fetchOffsets: a partition
// with hasPendingTransactionalOffsets is answered UNSTABLE_OFFSET_COMMIT;
// the consumer's OffsetFetchResponseHandler fails the whole fetch with
// UnstableOffsetCommitException, retried after retry.backoff.ms).
func (g *GroupCoordinator) consumerOffsetFetch(from model.Peer, m *model.ConsumerOffsetFetchRequest) {
	r := &model.ConsumerOffsetFetchResponse{CorrelationID: m.CorrelationID, Offsets: make([]int64, len(m.Partitions))}
	for i, p := range m.Partitions {
		r.Offsets[i] = -1
		if o, ok := g.consumed[groupPartition{m.GroupID, p}]; ok {
			r.Offsets[i] = o
		}
		if m.RequireStable && g.pendingPartition(m.GroupID, p) {
			r.Err = model.ErrUnstableOffsetCommit
		}
	}
	if m.RequireStable {
		g.observe(model.Obs{Kind: model.ObsOffsets, Peer: from.Node, Text: "offset-fetch", Msg: m, N: -1, Err: r.Err, Group: m.GroupID})
	}
	g.Outs = append(g.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: r})
}

// pendingPartition reports whether a transaction holds a pending offset
// of group's partition part (OffsetMetadataManager
// .hasPendingTransactionalOffsets).
func (g *GroupCoordinator) pendingPartition(group string, part int32) bool {
	for _, p := range g.pending {
		if p.group == group && slices.Contains(p.parts, part) {
			return true
		}
	}
	return false
}

// completePartitions applies marker mk to the per-partition offsets p
// that its producer's transaction left pending: COMMIT makes them the
// group's committed offsets, ABORT drops them
// (OffsetMetadataManager.replayEndTransactionMarker); each partition's
// is observed ("input offsets committed" or "input offsets aborted").
func (g *GroupCoordinator) completePartitions(m *model.WriteTxnMarkersRequest, mk model.TxnMarker, p pendingOffset) {
	text := "input offsets aborted"
	if mk.Marker == model.MarkerCommit {
		text = "input offsets committed"
	}
	for i, part := range p.parts {
		if mk.Marker == model.MarkerCommit {
			g.consumed[groupPartition{p.group, part}] = p.offs[i]
		}
		g.observe(model.Obs{Kind: model.ObsOffsets, Peer: -1, Text: text, Msg: m, PID: mk.PID, Epoch: mk.Epoch, N: p.offs[i], Partition: part, Marker: mk.Marker, Group: p.group})
	}
}

// ConsumerCommitted returns group's committed offset of partition part,
// or -1.
func (g *GroupCoordinator) ConsumerCommitted(group string, part int32) int64 {
	if o, ok := g.consumed[groupPartition{group, part}]; ok {
		return o
	}
	return -1
}
