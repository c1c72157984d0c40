package broker

import (
	"slices"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/storage"
	"github.com/idemsim/idemsim/sim"
)

// The broker's replication side (issue #14, docs/replication.md "Wiring"):
// with [BrokerConfig.Replicas] set, the broker hosts one replica of every
// partition whose assignment names it, each a [storage.ReplicaLog] around its
// [storage.Partition], a [LeaderState] and a [ReplicaFetcher]; it heartbeats to
// the controller, applies the controller's metadata, serves follower
// fetches and clients' Metadata, and answers acks=all produces when the
// high watermark passes them. Citations are to apache/kafka@1eb7644349cb:
// core/src/main/scala/kafka/server/ReplicaManager.scala (RM),
// core/src/main/scala/kafka/server/BrokerLifecycleManager.scala (BLM),
// core/src/main/scala/kafka/server/DelayedProduce.scala (DP).

// replica is one partition replica hosted by a broker.
type replica struct {
	log *storage.ReplicaLog
	ls  *LeaderState
	fet *ReplicaFetcher
	// deadline is the leader wake-up armed for the LeaderState's next
	// deadline, -1 for none.
	deadline sim.Time
}

// pendingReply is a produce or marker write waiting for acks=all
// completions (DP): its response is sent when waits is empty.
type pendingReply struct {
	from  model.Peer
	msg   model.Message
	waits []partWait
	// hints: the produce response gets KIP-951 leader hints when it is
	// sent (leaderhint.go).
	hints bool
}

// partWait is one partition's acks=all wait of a pending reply: idx is
// the partition's index in the response.
type partWait struct {
	part int32
	id   WaitID
	idx  int
}

// Replication timer tokens: tokRepl marks them, bits 56..59 say which,
// bits 32..47 the partition, the low 32 bits the fetcher's own token
// (the expiry check's tokens stay far below; the verification timeout,
// where there is one, uses bit 63).
const (
	tokRepl      uint64 = 1 << 62
	tokFetch     uint64 = 1 << 56
	tokLeader    uint64 = 2 << 56
	tokShrink    uint64 = 3 << 56
	tokHeartbeat uint64 = 4 << 56
	tokShutdown  uint64 = 5 << 56
	tokKindMask  uint64 = 15 << 56
)

func replTok(kind uint64, part int32, low uint64) uint64 {
	return tokRepl | kind | uint64(uint16(part))<<32 | low&0xffffffff
}

// Replicated reports whether the broker runs replication (a replicated
// topic and a controller).
func (b *Broker) Replicated() bool { return len(b.cfg.Replicas) > 0 }

// ReplicaLog returns the broker's replica of partition id, or nil.
func (b *Broker) ReplicaLog(id int32) *storage.ReplicaLog {
	if id < 0 || int(id) >= len(b.reps) || b.reps[id] == nil {
		return nil
	}
	return b.reps[id].log
}

// Preload writes partition id's data from before the run into the
// broker's copy of it, if it hosts one (without replication: leads it):
// write appends the data, and a replica ([storage.ReplicaLog.Preloaded])
// then holds it as committed in leader epoch 0. Called on every broker
// before the run starts.
func (b *Broker) Preload(id int32, write func(*storage.Partition)) {
	if p := b.Partition(id); p != nil {
		write(p)
		if lg := b.ReplicaLog(id); lg != nil {
			lg.Preloaded()
		}
	}
}

// Leads reports whether the broker leads partition id: always for its
// partitions without replication, else as the applied metadata says.
func (b *Broker) Leads(id int32) bool {
	if !b.Replicated() {
		return b.Partition(id) != nil
	}
	return id >= 0 && int(id) < len(b.reps) && b.reps[id] != nil && b.reps[id].ls.IsLeader()
}

// initReplicas makes the hosted replicas: their logs start empty, with
// epoch 0 begun by the initial leader when it applies the first metadata.
func (b *Broker) initReplicas() {
	b.reps = make([]*replica, len(b.cfg.Replicas))
	b.meta = model.Sized(b.meta, len(b.cfg.Replicas))
	for i, rs := range b.cfg.Replicas {
		b.meta[i] = model.PartitionState{Partition: int32(i), Leader: -1}
		if !slices.Contains(rs, b.cfg.ID) {
			continue
		}
		p := b.newPartition(int32(i))
		b.parts[i] = p
		b.notReady[i] = b.cfg.NotReadyBatches
		b.reps[i] = b.newReplica(storage.NewReplicaLog(p))
	}
}

func (b *Broker) newReplica(log *storage.ReplicaLog) *replica {
	r := &replica{log: log, ls: NewLeaderState(b.cfg.Leader, b.cfg.ID, log),
		fet: NewReplicaFetcher(b.cfg.Fetcher, b.cfg.ID, log.Part.ID, log), deadline: -1}
	// The broker's pool carves their messages, rewound between runs
	// when the broker is reclaimed.
	r.ls.msgs, r.fet.msgs = b.msgs, b.msgs
	return r
}

// DefaultBrokerHeartbeatInterval is broker.heartbeat.interval.ms, the
// interval of a broker's heartbeats to the controller
// (BrokerLifecycleManager).
const DefaultBrokerHeartbeatInterval = 2 * time.Second

func (b *Broker) heartbeatInterval() time.Duration {
	if b.cfg.HeartbeatInterval <= 0 {
		return DefaultBrokerHeartbeatInterval
	}
	return b.cfg.HeartbeatInterval
}

func (b *Broker) produceTimeout(req *model.ProduceRequest) time.Duration {
	if req.TimeoutMs > 0 {
		return time.Duration(req.TimeoutMs) * time.Millisecond
	}
	return 30 * time.Second
}

// Start begins a replicated broker's life (also after a restart): its
// first heartbeat (BLM, every broker.heartbeat.interval.ms) and its ISR
// shrink check (RM#startup schedules isr-expiration every
// replica.lag.time.max.ms / 2). Without replication it does nothing.
func (b *Broker) Start(now sim.Time) []model.Out {
	b.begin()
	b.start(now)
	return b.Outs
}

// start appends Start's effects to the current call's.
func (b *Broker) start(now sim.Time) {
	if !b.Replicated() {
		return
	}
	b.heartbeat(now)
	b.Outs = append(b.Outs, model.Out{Kind: model.OutWake, At: now.Add(b.cfg.Leader.ShrinkInterval()), Timer: replTok(tokShrink, 0, 0)})
}

func (b *Broker) heartbeat(now sim.Time) {
	b.Outs = append(b.Outs,
		b.heartbeatRequest(),
		model.Out{Kind: model.OutWake, At: now.Add(b.heartbeatInterval()), Timer: replTok(tokHeartbeat, 0, 0)})
}

func (b *Broker) heartbeatRequest() model.Out {
	return model.Out{Kind: model.OutSend, Dest: model.DestController, Msg: &model.BrokerHeartbeatRequest{BrokerID: b.cfg.ID, MetadataOffset: b.metaOffset,
		UncleanShutdown: b.uncleanRestart, WantShutDown: b.shut.on}}
}

// replWake handles a replication timer.
func (b *Broker) replWake(now sim.Time, token uint64) {
	part := int32(uint16(token >> 32))
	switch token & tokKindMask {
	case tokHeartbeat:
		b.heartbeat(now)
	case tokShutdown:
		b.shutdownWake(now, token&0xffffffff)
	case tokShrink:
		for _, r := range b.reps {
			if r != nil {
				b.leaderEffects(now, r, r.ls.MaybeShrinkISR(now))
			}
		}
		b.Outs = append(b.Outs, model.Out{Kind: model.OutWake, At: now.Add(b.cfg.Leader.ShrinkInterval()), Timer: replTok(tokShrink, 0, 0)})
	case tokLeader:
		if r := b.rep(part); r != nil {
			r.deadline = -1
			b.leaderEffects(now, r, r.ls.Tick(now))
		}
	case tokFetch:
		if r := b.rep(part); r != nil {
			b.fetcherOuts(now, r, r.fet.Wake(now, token&0xffffffff))
		}
	}
}

func (b *Broker) rep(part int32) *replica {
	if part < 0 || int(part) >= len(b.reps) {
		return nil
	}
	return b.reps[part]
}

// applyMetadata applies the controller's publication (RM#applyDelta; docs/
// replication.md wiring step 2): the fenced set, then each partition's
// registration to the leader side (always) and the fetcher.
func (b *Broker) applyMetadata(now sim.Time, m *model.MetadataUpdate) {
	if m.Offset > b.metaOffset {
		b.metaOffset = m.Offset
	}
	for _, r := range b.reps {
		if r != nil {
			r.ls.SetFenced(m.Fenced, m.ShuttingDown)
		}
	}
	for _, st := range m.Partitions {
		if st.Partition < 0 || int(st.Partition) >= len(b.meta) {
			continue
		}
		fresh := b.meta[st.Partition].Replicas == nil || st.PartitionEpoch > b.meta[st.Partition].PartitionEpoch
		if !fresh && st.PartitionEpoch < b.meta[st.Partition].PartitionEpoch {
			// An older publication overtaken by a newer one on the way
			// (Kafka's brokers replay the metadata log in order).
			continue
		}
		if fresh {
			b.meta[st.Partition] = st.Clone()
		}
		r := b.rep(st.Partition)
		if fresh && (r == nil) == slices.Contains(st.Replicas, b.cfg.ID) {
			// A reassignment added this broker, or removed it.
			if r = b.reassigned(now, st.Partition, r); r != nil {
				r.ls.SetFenced(m.Fenced, m.ShuttingDown)
			}
		}
		if r == nil {
			continue
		}
		was := r.ls.IsLeader()
		b.leaderEffects(now, r, r.ls.ApplyMetadata(now, st))
		if st.Leader == b.cfg.ID {
			r.fet.Stop()
			if !was && r.ls.IsLeader() {
				b.observe(model.Obs{Kind: model.ObsNote, Text: "p" + strconv.FormatInt(int64(st.Partition), 10) + " leader at epoch " + strconv.FormatInt(int64(st.LeaderEpoch), 10) +
					", log end " + strconv.FormatInt(r.log.LogEndOffset(), 10) + ", high watermark " + strconv.FormatInt(r.log.HighWatermark(), 10)})
			}
		} else {
			if was && !r.ls.IsLeader() {
				b.observe(model.Obs{Kind: model.ObsNote, Text: "p" + strconv.FormatInt(int64(st.Partition), 10) + " resigns: leader b" + strconv.FormatInt(int64(st.Leader)+1, 10) + " epoch " + strconv.FormatInt(int64(st.LeaderEpoch), 10)})
			}
			if b.shut.on && (st.Leader < 0 || !slices.Contains(st.ISR, b.cfg.ID)) {
				// RM#applyLocalFollowersDelta: in controlled shutdown a
				// replica out of the ISR, or without a leader, stops
				// fetching.
				r.fet.Stop()
				continue
			}
			b.fetcherOuts(now, r, r.fet.BecomeFollower(now, st))
		}
	}
}

// reassigned adds partition id's replica to the broker when r is nil (a
// reassignment named it: RM#applyDelta creates the partition, empty, and
// makes it a follower, which fetches from offset 0) and returns it; it
// deletes replica r otherwise (a completed reassignment removed the
// broker: RM#applyDelta stops the partition and deletes its log, and an
// acks=all produce it still held ends NOT_LEADER_OR_FOLLOWER) and
// returns nil.
func (b *Broker) reassigned(now sim.Time, id int32, r *replica) *replica {
	tag := "p" + strconv.FormatInt(int64(id), 10)
	if r == nil {
		p := b.newPartition(id)
		b.parts[id] = p
		b.reps[id] = b.newReplica(storage.NewReplicaLog(p))
		b.observe(model.Obs{Kind: model.ObsNote, Text: tag + " replica added by a reassignment: fetches from the leader from offset 0"})
		return b.reps[id]
	}
	r.fet.Stop()
	b.leaderEffects(now, r, r.ls.Resign())
	b.reps[id], b.parts[id] = nil, nil
	b.observe(model.Obs{Kind: model.ObsNote, Text: tag + " replica removed by a reassignment: its log is deleted"})
	return nil
}

// fetcherOuts carries out a fetcher's effects: its fetches go to the
// leader, its timers are tagged with the partition, and a truncation is
// followed by the replica's state check (INV-STATE on every replica).
func (b *Broker) fetcherOuts(now sim.Time, r *replica, outs []model.Out) {
	for _, o := range outs {
		switch o.Kind {
		case model.OutWake:
			o.Timer = replTok(tokFetch, r.log.Part.ID, o.Timer)
			b.Outs = append(b.Outs, o)
		case model.OutNote:
			b.observe(model.Obs{Kind: model.ObsNote, Text: o.Note})
			b.observe(model.Obs{Kind: model.ObsStateCheck, Partition: r.log.Part.ID, Text: r.log.Part.StateDiff(now)})
		default:
			b.Outs = append(b.Outs, o)
		}
	}
}

// fetchResponse hands a fetch answer to the partition's fetcher.
func (b *Broker) fetchResponse(now sim.Time, from model.Peer, m *model.FetchResponse) {
	if r := b.rep(m.Partition); r != nil {
		old := r.log.Part.LogStartOffset()
		b.fetcherOuts(now, r, r.fet.Step(now, from, m))
		if start := r.log.Part.LogStartOffset(); start != old {
			b.observeLogStart(m.Partition, old, start, storage.CauseLeader, model.ErrNone)
		}
	}
}

// fetchRequest serves a follower's fetch as the leader (wiring step 4).
func (b *Broker) fetchRequest(now sim.Time, from model.Peer, m *model.FetchRequest) {
	r := b.rep(m.Partition)
	if r == nil {
		resp := &model.FetchResponse{CorrelationID: m.CorrelationID, Partition: m.Partition, Err: model.ErrNotLeaderOrFollower, HighWatermark: -1,
			DivergingEpoch: model.UndefinedEpoch, DivergingEndOffset: model.UndefinedEpochOffset}
		b.Outs = append(b.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: resp})
		return
	}
	resp, eff := r.ls.OnFetch(now, from, m)
	if resp != nil {
		b.Outs = append(b.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: resp})
	}
	b.leaderEffects(now, r, eff)
}

// leaderEffects carries out a LeaderState call's effects (wiring step 5).
func (b *Broker) leaderEffects(now sim.Time, r *replica, eff LeaderEffects) {
	for _, c := range eff.Completed {
		b.completeWait(r.log.Part.ID, c)
	}
	for _, f := range eff.Fetches {
		b.Outs = append(b.Outs, model.Out{Kind: model.OutReply, Peer: f.Peer, Msg: f.Resp})
	}
	if eff.Alter != nil {
		b.Outs = append(b.Outs, model.Out{Kind: model.OutSend, Dest: model.DestController, Msg: eff.Alter})
		b.observe(model.Obs{Kind: model.ObsNote, Text: "p" + strconv.FormatInt(int64(eff.Alter.Partition), 10) + " proposes ISR " + string(model.AppendBrokers(nil, eff.Alter.NewISR))})
	}
	if at, ok := r.ls.NextDeadline(); ok && (r.deadline < 0 || at < r.deadline) {
		r.deadline = at
		b.Outs = append(b.Outs, model.Out{Kind: model.OutWake, At: at, Timer: replTok(tokLeader, r.log.Part.ID, 0)})
	}
}

// completeWait finishes one partition's acks=all wait and sends the
// response it held once nothing else holds it.
func (b *Broker) completeWait(part int32, c ProduceCompletion) {
	for i := range b.pending {
		pr := &b.pending[i]
		for j, w := range pr.waits {
			if w.part != part || w.id != c.ID {
				continue
			}
			switch m := pr.msg.(type) {
			case *model.ProduceResponse:
				m.Partitions[w.idx].Err = c.Err
			case *model.WriteTxnMarkersResponse:
				m.Errs[w.idx] = c.Err
			}
			pr.waits = slices.Delete(pr.waits, j, j+1)
			if len(pr.waits) == 0 {
				if m, ok := pr.msg.(*model.ProduceResponse); ok && pr.hints {
					for k := range m.Partitions {
						if m.Partitions[k].Err == model.ErrNotLeaderOrFollower {
							if b.sendsLeaderHints() {
								b.fillLeaderHints(m)
							}
							break
						}
					}
				}
				b.Outs = append(b.Outs, model.Out{Kind: model.OutReply, Peer: pr.from, Msg: pr.msg})
				b.pending = slices.Delete(b.pending, i, i+1)
			}
			return
		}
	}
}

// leaderAppend runs after a leader append on partition part (wiring step
// 3): the epoch stamp and the high watermark rule; for acks=-1 it starts
// the wait for requiredOffset and returns it, or 0 when it is done at
// once (with its error).
func (b *Broker) leaderAppend(now sim.Time, part int32, res model.AppendResult, appended bool, acks int8, timeout time.Duration) (WaitID, model.ErrCode) {
	r := b.rep(part)
	if appended {
		r.log.OnLeaderAppend(r.ls.State().LeaderEpoch, res)
		b.leaderEffects(now, r, r.ls.OnLeaderAppend(now))
	}
	if acks != -1 {
		return 0, model.ErrNone
	}
	id, done, err := r.ls.AwaitCommit(now, res.LastOffset+1, timeout)
	if done {
		return 0, err
	}
	b.leaderEffects(now, r, LeaderEffects{})
	return id, model.ErrNone
}

// replDisconnected handles the break of the connection to broker dest (a
// leader it fetches from) or to the controller: the fetches in flight to
// dest fail and back off; an ISR change in flight to the controller is
// sent again.
func (b *Broker) replDisconnected(now sim.Time, dest int32) {
	for _, r := range b.reps {
		if r == nil {
			continue
		}
		if dest == model.DestController {
			if a := r.ls.PendingAlter(); a != nil {
				b.Outs = append(b.Outs, model.Out{Kind: model.OutSend, Dest: model.DestController, Msg: a})
			}
			continue
		}
		if l, _ := r.fet.Leader(); l == dest {
			b.fetcherOuts(now, r, r.fet.Disconnected(now))
		}
	}
}

// metadataRequest answers a client's Metadata from the applied metadata (RM's
// metadata cache, KRaftMetadataCache#getPartitionMetadata): the leader of each
// partition, -1 while unknown or leaderless. Without replication the leaders
// are fixed.
func (b *Broker) metadataRequest(from model.Peer, m *model.MetadataRequest) {
	resp := &model.MetadataResponse{CorrelationID: m.CorrelationID, Leaders: make([]int32, len(b.cfg.Leaders)), Epochs: make([]int32, len(b.cfg.Leaders))}
	for i := range resp.Leaders {
		resp.Leaders[i] = b.cfg.Leaders[i]
		if b.Replicated() {
			resp.Leaders[i], resp.Epochs[i] = b.meta[i].Leader, b.meta[i].LeaderEpoch
		}
	}
	b.Outs = append(b.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: resp})
}

// replCrash loses the volatile replication state: leader and fetcher
// state (made anew at restart), waits, parked fetches and the metadata
// cache. Logs, epoch caches and high watermarks survive (the HW as if
// checkpointed at the crash).
func (b *Broker) replCrash() {
	b.pending = nil
	b.metaOffset = 0
	for i, r := range b.reps {
		if r != nil {
			r.fet.Stop()
			b.reps[i] = b.newReplica(r.log)
		}
		b.meta[i] = model.PartitionState{Partition: int32(i), Leader: -1}
	}
}
