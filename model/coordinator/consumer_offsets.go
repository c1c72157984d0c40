package coordinator

import (
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
// -1 for none.
func (g *GroupCoordinator) consumerOffsetFetch(from model.Peer, m *model.ConsumerOffsetFetchRequest) {
	r := &model.ConsumerOffsetFetchResponse{CorrelationID: m.CorrelationID, Offsets: make([]int64, len(m.Partitions))}
	for i, p := range m.Partitions {
		r.Offsets[i] = -1
		if o, ok := g.consumed[groupPartition{m.GroupID, p}]; ok {
			r.Offsets[i] = o
		}
	}
	g.Outs = append(g.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: r})
}

// ConsumerCommitted returns group's committed offset of partition part,
// or -1.
func (g *GroupCoordinator) ConsumerCommitted(group string, part int32) int64 {
	if o, ok := g.consumed[groupPartition{group, part}]; ok {
		return o
	}
	return -1
}
