package coordinator

import (
	"slices"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// GroupCoordinator keeps consumer groups' committed input positions, for
// exactly-once applications (Kafka's GroupCoordinator over
// __consumer_offsets, reduced to one input partition per group for
// transactional commits), and classic consumer groups' membership:
// JoinGroup, SyncGroup, Heartbeat and LeaveGroup, generations,
// rebalances, session and rebalance timeouts, static membership
// (classic_group.go). A pure state machine ([model.Server]):
//
//   - OffsetCommit and TxnOffsetCommit that carry group metadata are
//     checked against the group's members and generation
//     (validateOffsetCommit: ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID,
//     FENCED_INSTANCE_ID, REBALANCE_IN_PROGRESS); without metadata
//     (generation -1) they are accepted as before unless a
//     non-transactional commit meets a group with members;
//
//   - TxnOffsetCommit stores the offset as pending for the producer id
//     (GroupMetadata.prepareTxnOffsetCommit) unless the producer's epoch
//     is below one the group coordinator has seen for that producer id:
//     the append to __consumer_offsets is checked against the producer
//     state like any transactional write, so a fenced instance's commit
//     is refused with INVALID_PRODUCER_EPOCH. A TxnOffsetCommit v5 (transaction
//     version 2, KIP-890 part 2) comes without AddOffsetsToTxn: the group
//     coordinator first adds the offsets partition to the transaction at
//     the transaction coordinator (an AddPartitionsToTxn on the
//     producer's behalf, as a partition leader does for Produce v12) and
//     writes the offsets once that is answered; an error is the
//     commit's answer, a fenced epoch's PRODUCER_FENCED as
//     INVALID_PRODUCER_EPOCH (the broker's AddPartitionsToTxnManager);
//
//   - the transaction's marker, sent by the transaction coordinator to
//     the offsets partition ([model.OffsetsPartition]), makes the pending offset
//     the group's committed one (COMMIT) or drops it (ABORT)
//     (GroupMetadata.completePendingTxnOffsetCommit);
//
//   - OffsetFetch with require_stable answers UNSTABLE_OFFSET_COMMIT while
//     a transaction holds a pending commit for the group
//     (GroupMetadataManager.getOffsets, KIP-447), else the committed
//     offset or -1.
//
// Its offsets stand for __consumer_offsets and survive a crash; so does
// each classic group as its GroupMetadata record last stored it (the
// members and assignment of its last Stable generation, or Empty): a
// crash loses the rebalance in progress and the awaited JoinGroup and
// SyncGroup answers, and the restarted coordinator loads the stored
// groups with every member's session starting anew
// (GroupMetadataManager.onLoaded).
type GroupCoordinator struct {
	committed map[string]int64
	// consumed are the consumers' offsets committed with OffsetCommit,
	// by group and partition (consumer_offsets.go).
	consumed map[groupPartition]int64
	pending  map[model.ProducerID]pendingOffset
	// epochs is, per producer id, the highest epoch seen in a commit or a
	// marker.
	epochs map[model.ProducerID]int16
	// adding are the TxnOffsetCommit v5 requests waiting for the
	// transaction coordinator's answer to the implicit add, oldest first;
	// nextCorr numbers the adds. Both are volatile: a crash loses them.
	adding   []addingOffsets
	nextCorr int64
	// groups are the classic groups by id, groupIDs their ids sorted (the
	// order timers and scans use); nextMember numbers the member ids
	// given; wakeAt is the earliest group wake-up asked for, never if none.
	groups     map[string]*classicGroup
	groupIDs   []string
	nextMember int64
	wakeAt     sim.Time
	cfg        GroupConfig
	// hosting is the broker it is on, in a replicated run (hosting.go).
	hosting Hosting
	model.ServerBufs
	// msgs carves its answers (msgpool.go).
	msgs *msgPool
}

type pendingOffset struct {
	group  string
	offset int64
	// parts and offs are a TxnOffsetCommit's per-partition offsets
	// (model.TxnOffsetCommitRequest.Partitions), nil for a group-level
	// one.
	parts []int32
	offs  []int64
}

// addingOffsets is a TxnOffsetCommit v5 waiting for its implicit add.
type addingOffsets struct {
	corr int64
	from model.Peer
	req  model.TxnOffsetCommitRequest
}

// NewGroupCoordinator returns a group coordinator with no groups.
func NewGroupCoordinator() *GroupCoordinator {
	g := &GroupCoordinator{}
	g.Reset()
	return g
}

// Configure sets the classic groups' configuration; Reset keeps it.
func (g *GroupCoordinator) Configure(cfg GroupConfig) { g.cfg = cfg }

// Reset makes g a new group coordinator: afterwards it behaves exactly
// as NewGroupCoordinator() would (with its configuration), and equals it
// field by field, keeping the memory of its maps and its effect and
// observation buffers. Reset of the zero GroupCoordinator is
// NewGroupCoordinator.
func (g *GroupCoordinator) Reset() {
	bufs, msgs := g.ServerBufs, g.msgs
	bufs.Clear()
	resetPool(&msgs)
	*g = GroupCoordinator{committed: model.ClearedMap(g.committed), consumed: model.ClearedMap(g.consumed), pending: model.ClearedMap(g.pending), epochs: model.ClearedMap(g.epochs),
		adding: g.adding[:0], groups: model.ClearedMap(g.groups), groupIDs: model.EmptiedNonNil(g.groupIDs), wakeAt: never, cfg: g.cfg, ServerBufs: bufs, msgs: msgs}
}

// Committed returns group's committed next input offset, or -1.
func (g *GroupCoordinator) Committed(group string) int64 {
	if o, ok := g.committed[group]; ok {
		return o
	}
	return -1
}

// Step handles TxnOffsetCommit, OffsetFetch, the transaction
// coordinator's markers and its answers to the implicit adds, and the
// consumers' group requests; a request sent to a host the coordinator
// left, or reaching it while it loads, is answered by gated (hosting.go).
func (g *GroupCoordinator) Step(now sim.Time, from model.Peer, m model.Message) []model.Out {
	g.Outs = g.Outs[:0]
	g.Obs.Reset()
	if g.gated(now, from, m) {
		return g.Outs
	}
	switch m := m.(type) {
	case *model.TxnOffsetCommitRequest:
		if err := g.hosting.Gate(now, m.Coord); err != model.ErrNone {
			g.commitOffsets(now, from, m, err)
			break
		}
		if e, ok := g.epochs[m.PID]; m.TransactionV2 && !(ok && m.Epoch < e) {
			g.addOffsetsPartition(from, m)
			break
		}
		g.commitOffsets(now, from, m, model.ErrNone)
	case *model.VerifyPartitionsResponse:
		g.added(now, m)
	case *model.Disconnected:
		// The connection to the transaction coordinator broke: every
		// implicit add on it fails, as a partition leader's do
		// (NETWORK_EXCEPTION, retriable for the client).
		for _, a := range g.adding {
			g.commitOffsets(now, a.from, &a.req, model.ErrNetworkException)
		}
		g.adding = g.adding[:0]
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
			if p.parts != nil {
				g.completePartitions(m, mk, p)
				resp.Errs[i] = model.ErrNone
				continue
			}
			text := "offsets aborted"
			if mk.Marker == model.MarkerCommit {
				g.committed[p.group] = p.offset
				text = "offsets committed"
			}
			g.observe(model.Obs{Kind: model.ObsOffsets, Peer: -1, Text: text, Msg: m, PID: mk.PID, Epoch: mk.Epoch, N: p.offset, Marker: mk.Marker, Group: p.group})
			resp.Errs[i] = model.ErrNone
		}
		g.Outs = append(g.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: resp})
	case *model.OffsetCommitRequest:
		g.offsetCommit(now, from, m)
	case *model.ConsumerOffsetFetchRequest:
		g.consumerOffsetFetch(from, m)
	case *model.JoinGroupRequest:
		g.joinGroup(now, from, m)
		g.scheduleGroups()
	case *model.SyncGroupRequest:
		g.syncGroup(now, from, m)
		g.scheduleGroups()
	case *model.HeartbeatRequest:
		g.heartbeat(now, from, m)
		g.scheduleGroups()
	case *model.LeaveGroupRequest:
		g.leaveGroup(now, from, m)
		g.scheduleGroups()
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

// commitOffsets answers TxnOffsetCommit m: with err when the implicit add
// failed, else with the group's refusal of m's group metadata
// (validateTransactionalOffsetCommit), else it stores the offset as
// pending unless the producer's epoch is below one seen for its producer
// id: INVALID_PRODUCER_EPOCH, the append to __consumer_offsets refused by
// the partition's producer state (ProducerAppendInfo.checkProducerEpoch
// throws InvalidProducerEpochException for a client's write since 2.7,
// KIP-588, storage/src/main/java/org/apache/kafka/storage/internals/log/
// ProducerAppendInfo.java), which the group coordinator passes on
// (CoordinatorOperationExceptionHelper.handleOperationException, its
// default case, group-coordinator/src/main/java/org/apache/kafka/
// coordinator/common/runtime/CoordinatorOperationExceptionHelper.java).
func (g *GroupCoordinator) commitOffsets(now sim.Time, from model.Peer, m *model.TxnOffsetCommitRequest, err model.ErrCode) {
	if err == model.ErrNone && (len(g.groups) > 0 || !m.GroupMetadata.None()) {
		err = g.validateOffsetCommit(now, m.GroupID, m.GroupMetadata, true)
	}
	if err == model.ErrNone {
		if e, ok := g.epochs[m.PID]; ok && m.Epoch < e {
			err = model.ErrInvalidProducerEpoch
		} else {
			g.epochs[m.PID] = m.Epoch
			p := pendingOffset{group: m.GroupID, offset: m.Offset}
			if m.Partitions != nil {
				p.parts, p.offs = slices.Clone(m.Partitions), slices.Clone(m.Offsets)
			}
			g.pending[m.PID] = p
		}
	}
	n := m.Offset
	if m.Partitions != nil {
		n = -1 // the trace line's request lists them
	}
	g.observe(model.Obs{Kind: model.ObsOffsets, Peer: from.Node, Text: "txn-offset-commit", Msg: m, PID: m.PID, Epoch: m.Epoch, N: n, Err: err, Group: m.GroupID})
	g.Outs = append(g.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: model.Carve(&g.msgs.txnResps, model.TxnResponse{CorrelationID: m.CorrelationID, Op: "TxnOffsetCommit", Err: err})})
}

// addOffsetsPartition asks the transaction coordinator to add the
// group's offsets partition to m's transaction, and parks m until it
// answers.
func (g *GroupCoordinator) addOffsetsPartition(from model.Peer, m *model.TxnOffsetCommitRequest) {
	g.nextCorr++
	parts := g.msgs.parts.Slice(1)
	parts[0] = model.OffsetsPartition
	ask := model.Carve(&g.msgs.verifyReqs, model.VerifyPartitionsRequest{CorrelationID: g.nextCorr, TransactionalID: m.TransactionalID, PID: m.PID, Epoch: m.Epoch,
		Partitions: parts, Add: true})
	g.adding = append(g.adding, addingOffsets{corr: g.nextCorr, from: from, req: *m})
	g.Outs = append(g.Outs, model.Out{Kind: model.OutSend, Dest: model.DestCoordinator, Msg: ask})
}

// added writes the offsets of the TxnOffsetCommit the answer is for.
func (g *GroupCoordinator) added(now sim.Time, m *model.VerifyPartitionsResponse) {
	for i := range g.adding {
		if g.adding[i].corr != m.CorrelationID {
			continue
		}
		a := g.adding[i]
		g.adding = append(g.adding[:i], g.adding[i+1:]...)
		err := model.ErrNone
		if len(m.Errs) > 0 {
			err = m.Errs[0]
		}
		if err == model.ErrProducerFenced {
			// The broker's AddPartitionsToTxnManager answers a fenced
			// epoch INVALID_PRODUCER_EPOCH ("Producers expect to handle
			// INVALID_PRODUCER_EPOCH in this scenario", from 3.6, KIP-890
			// part 1; server/src/main/java/org/apache/kafka/server/
			// transaction/AddPartitionsToTxnManager.java), as a partition
			// leader does for Produce v12.
			err = model.ErrInvalidProducerEpoch
		}
		g.commitOffsets(now, a.from, &a.req, err)
		return
	}
}

// Wake runs the classic groups' timers due at now (token is the time the
// wake-up was asked for): join phases, pending syncs, sessions.
func (g *GroupCoordinator) Wake(now sim.Time, token uint64) []model.Out {
	g.Outs = g.Outs[:0]
	g.Obs.Reset()
	if sim.Time(token) == g.wakeAt {
		g.wakeAt = never
	}
	g.groupTimers(now)
	g.scheduleGroups()
	return g.Outs
}

// Crash keeps the offsets, which stand for __consumer_offsets, and the
// groups' stored records; it loses the implicit adds in progress and the
// groups' live state (the rebalance under way, awaited answers, timers).
func (g *GroupCoordinator) Crash() {
	g.adding = g.adding[:0]
	g.wakeAt = never
	for _, id := range g.groupIDs {
		c := g.groups[id]
		c.state = GroupDead // until Restart loads it
		c.members = c.members[:0]
		c.pending = c.pending[:0]
		c.joinAt, c.syncAt = never, never
	}
}

// Restart loads the classic groups from their stored records
// (GroupMetadataManager.onLoaded): each member's session starts at now.
func (g *GroupCoordinator) Restart(now sim.Time, clean bool) []model.Out {
	if len(g.groupIDs) == 0 {
		return nil
	}
	g.Outs = g.Outs[:0]
	g.Obs.Reset()
	ids := g.groupIDs[:0]
	for _, id := range g.groupIDs {
		if g.groups[id].load(now) {
			ids = append(ids, id)
		} else {
			delete(g.groups, id)
		}
	}
	g.groupIDs = ids
	g.scheduleGroups()
	return g.Outs
}

func (g *GroupCoordinator) observe(o model.Obs) { g.Outs = append(g.Outs, g.Obs.Add(&o)) }

var _ model.Server = (*GroupCoordinator)(nil)

var _ model.EffectHolder = (*GroupCoordinator)(nil)
