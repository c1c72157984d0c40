package coordinator

import "github.com/idemsim/idemsim/model"

// A consumer's offsets outside transactions: OffsetCommit stores them,
// OffsetFetch (require_stable) reads them back. apache/kafka:
// group-coordinator/src/main/java/org/apache/kafka/coordinator/group/
// OffsetMetadataManager.java (commitOffset, fetchOffsets). Group
// membership and generations are not modelled: a commit is accepted from
// whoever sends it, as a simple (manually assigned) consumer's is.

// groupPartition keys a committed consumer offset.
type groupPartition struct {
	group string
	part  int32
}

// offsetCommit stores m's offsets and answers NONE.
func (g *GroupCoordinator) offsetCommit(from model.Peer, m *model.OffsetCommitRequest) {
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
