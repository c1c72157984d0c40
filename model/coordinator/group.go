package coordinator

import (
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// GroupCoordinator keeps consumer groups' committed input positions, for
// exactly-once applications (Kafka's GroupCoordinator over
// __consumer_offsets, reduced to one input partition per group; group
// membership and generations, KIP-447, are not modelled). A pure state
// machine ([model.Server]):
//
//   - TxnOffsetCommit stores the offset as pending for the producer id
//     (GroupMetadata.prepareTxnOffsetCommit) unless the producer's epoch
//     is below one the group coordinator has seen for that producer id:
//     the append to __consumer_offsets is checked against the producer
//     state like any transactional write, so a fenced instance's commit
//     is refused with PRODUCER_FENCED;
//   - the transaction's marker, sent by the transaction coordinator to
//     the offsets partition ([model.OffsetsPartition]), makes the pending offset
//     the group's committed one (COMMIT) or drops it (ABORT)
//     (GroupMetadata.completePendingTxnOffsetCommit);
//   - OffsetFetch with require_stable answers UNSTABLE_OFFSET_COMMIT while
//     a transaction holds a pending commit for the group
//     (GroupMetadataManager.getOffsets, KIP-447), else the committed
//     offset or -1.
//
// Its state stands for __consumer_offsets and survives a crash.
type GroupCoordinator struct {
	committed map[string]int64
	pending   map[model.ProducerID]pendingOffset
	// epochs is, per producer id, the highest epoch seen in a commit or a
	// marker.
	epochs map[model.ProducerID]int16
	model.ServerBufs
	// msgs carves its answers (msgpool.go).
	msgs *msgPool
}

type pendingOffset struct {
	group  string
	offset int64
}

// NewGroupCoordinator returns a group coordinator with no groups.
func NewGroupCoordinator() *GroupCoordinator {
	g := &GroupCoordinator{}
	g.Reset()
	return g
}

// Reset makes g a new group coordinator: afterwards it behaves exactly
// as NewGroupCoordinator() would, and equals it field by field, keeping
// the memory of its maps and its effect and observation buffers. Reset
// of the zero GroupCoordinator is NewGroupCoordinator.
func (g *GroupCoordinator) Reset() {
	bufs, msgs := g.ServerBufs, g.msgs
	bufs.Clear()
	resetPool(&msgs)
	*g = GroupCoordinator{committed: model.ClearedMap(g.committed), pending: model.ClearedMap(g.pending), epochs: model.ClearedMap(g.epochs),
		ServerBufs: bufs, msgs: msgs}
}

// Committed returns group's committed next input offset, or -1.
func (g *GroupCoordinator) Committed(group string) int64 {
	if o, ok := g.committed[group]; ok {
		return o
	}
	return -1
}

// Step handles TxnOffsetCommit, OffsetFetch and the transaction
// coordinator's markers.
func (g *GroupCoordinator) Step(now sim.Time, from model.Peer, m model.Message) []model.Out {
	g.Outs = g.Outs[:0]
	g.Obs.Reset()
	switch m := m.(type) {
	case *model.TxnOffsetCommitRequest:
		err := model.ErrNone
		if e, ok := g.epochs[m.PID]; ok && m.Epoch < e {
			err = model.ErrProducerFenced
		} else {
			g.epochs[m.PID] = m.Epoch
			g.pending[m.PID] = pendingOffset{group: m.GroupID, offset: m.Offset}
		}
		g.observe(model.Obs{Kind: model.ObsOffsets, Peer: from.Node, Text: "txn-offset-commit", Msg: m, PID: m.PID, Epoch: m.Epoch, N: m.Offset, Err: err, Group: m.GroupID})
		g.Outs = append(g.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: model.Carve(&g.msgs.txnResps, model.TxnResponse{CorrelationID: m.CorrelationID, Op: "TxnOffsetCommit", Err: err})})
	case *model.WriteTxnMarkersRequest:
		resp := model.Carve(&g.msgs.markerResps, model.WriteTxnMarkersResponse{CorrelationID: m.CorrelationID, TransactionalID: m.TransactionalID, Errs: g.msgs.errs.Slice(len(m.Markers))})
		for i, mk := range m.Markers {
			if e, ok := g.epochs[mk.PID]; !ok || mk.Epoch > e {
				g.epochs[mk.PID] = mk.Epoch
			}
			p, ok := g.pending[mk.PID]
			if !ok {
				continue
			}
			delete(g.pending, mk.PID)
			text := "offsets aborted"
			if mk.Marker == model.MarkerCommit {
				g.committed[p.group] = p.offset
				text = "offsets committed"
			}
			g.observe(model.Obs{Kind: model.ObsOffsets, Text: text, Msg: m, PID: mk.PID, Epoch: mk.Epoch, N: p.offset, Marker: mk.Marker, Group: p.group})
			resp.Errs[i] = model.ErrNone
		}
		g.Outs = append(g.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: resp})
	case *model.OffsetFetchRequest:
		r := model.Carve(&g.msgs.fetchResps, model.OffsetFetchResponse{GroupID: m.GroupID, Offset: g.Committed(m.GroupID)})
		for _, p := range g.pending {
			if p.group == m.GroupID {
				r.Err, r.Offset = model.ErrUnstableOffsetCommit, -1
				break
			}
		}
		g.observe(model.Obs{Kind: model.ObsOffsets, Peer: from.Node, Text: "offset-fetch", Msg: m, N: r.Offset, Err: r.Err, Group: m.GroupID})
		g.Outs = append(g.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: r})
	default:
		panic("model: the group coordinator cannot handle " + string(m.AppendDescription(nil)))
	}
	return g.Outs
}

// Wake does nothing: the group coordinator sets no timers.
func (g *GroupCoordinator) Wake(now sim.Time, token uint64) []model.Out { return nil }

// Crash keeps everything: the state stands for __consumer_offsets.
func (g *GroupCoordinator) Crash() {}

// Restart does nothing.
func (g *GroupCoordinator) Restart(now sim.Time, clean bool) []model.Out { return nil }

func (g *GroupCoordinator) observe(o model.Obs) { g.Outs = append(g.Outs, g.Obs.Add(&o)) }

var _ model.Server = (*GroupCoordinator)(nil)

var _ model.EffectHolder = (*GroupCoordinator)(nil)
