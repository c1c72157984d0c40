package broker

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/storage"
	"github.com/idemsim/idemsim/sim"
)

// BrokerConfig holds one broker's settings, including the fault sources
// that belong to the broker process.
type BrokerConfig struct {
	// ID is the broker's index, 0..brokers-1; producers address it by it.
	ID int32
	// Leaders gives the leader broker index of every partition of the
	// topic; the broker leads the partitions whose entry is ID.
	Leaders []int32
	// Partition holds the settings of every partition the broker leads.
	Partition storage.PartitionConfig
	// ConsumerFetchMaxEntries bounds the log entries one consumer fetch
	// returns, standing for fetch.max.bytes and max.partition.fetch.bytes
	// (byte sizes are not modelled); 0: no bound.
	ConsumerFetchMaxEntries int
	// RetentionCheckInterval is log.retention.check.interval.ms (Kafka
	// default 300000 ms): the broker applies [storage.Retention] at every
	// multiple of it (logstart.go). Unused while Partition.Retention is nil.
	RetentionCheckInterval time.Duration
	// ExpirationCheckInterval is producer.id.expiration.check.interval.ms
	// (Kafka default 600000 ms): the broker removes expired producer state
	// at every multiple of it. 0 turns expiry off.
	ExpirationCheckInterval time.Duration
	// TransientPPM is broker.transient_error in parts per million: the
	// chance that a batch is answered NOT_ENOUGH_REPLICAS with nothing
	// appended (a transient ISR shrink), 0..1,000,000.
	TransientPPM uint32
	// NotReadyBatches is partition.not_ready.batches: per partition, the
	// first that many batches are answered NOT_LEADER_OR_FOLLOWER, >= 0.
	NotReadyBatches int64
	// RebuildNone is broker.restart.rebuild=none (the README's -bug Z08, a
	// what-if): a restarted broker keeps its logs but no producer state.
	RebuildNone bool
	// MuteRandom is fault.realized: the transient-error draw is still made
	// (so the stream stays aligned) but counts for nothing; the planned
	// rejects stand for it.
	MuteRandom bool
	// Rand is the broker's own random stream (transient errors).
	Rand *rand.Rand
	// VerificationTimeout is how long a produce request waits for the
	// coordinator's answer to its verification (AddPartitionsToTxnManager,
	// an InterBrokerSendThread with the broker's request.timeout.ms,
	// Kafka default 30000 ms) before it is answered as if the connection
	// broke; 0 means 30 s.
	VerificationTimeout time.Duration
	// Replicas gives, per partition, its replicas' broker indexes in
	// assignment order (replication.factor of them; the first is the
	// preferred leader). Nil: no replication, the broker is the only copy
	// of the partitions Leaders gives it, and there is no controller.
	Replicas [][]int32
	// Leader, Fetcher and HeartbeatInterval are the replication settings
	// (replica.lag.time.max.ms, min.insync.replicas, version rules;
	// replica.fetch.*; broker.heartbeat.interval.ms, 0 means 2000 ms).
	Leader            LeaderConfig
	Fetcher           FetcherConfig
	HeartbeatInterval time.Duration
}

// RejectRule is an armed plan action "reject N CLIENT>SERVER ERROR
// [partition K]": request N from client node Client is answered Err for
// partition Part (every batch when Part < 0), with nothing appended.
type RejectRule struct {
	N      int64
	Client int32
	Err    model.ErrCode
	Part   int32
	used   bool
	// hit: the rule matched a batch of the request being handled; a
	// whole-request rule (Part < 0) is used up once that request is
	// done, so a duplicate of the request (datagram mode) is not
	// rejected again.
	hit bool
	// Action and Line name the plan action that armed the rule (its
	// index in the plan, its line without the time): the broker reports
	// ObsFault with them when the rule fires (report only). Line is ""
	// for a rule no plan line armed (a script's), which reports nothing.
	Action int32
	Line   string
}

// Broker is one broker process, leader of some partitions of the topic: it
// turns produce requests into appends, writes transaction markers, and
// expires idle producer state. Without [BrokerConfig.Replicas] the leader
// is the only replica, so acks=1 and acks=all behave alike (the high
// watermark equals the log end); with them it replicates (broker_repl.go).
// It is a pure state machine ([model.Server]).
type Broker struct {
	cfg BrokerConfig
	// parts holds the led partitions by partition id (nil elsewhere).
	parts []*storage.Partition
	// notReady counts, per partition, the batches still to be answered
	// NOT_LEADER_OR_FOLLOWER.
	notReady []int64
	rejects  []RejectRule
	// expiry drives the periodic producer-state expiry check, retention
	// the retention check (logstart.go).
	expiry, retention model.CheckTimer
	// parked are the produce requests waiting for their verification
	// answers, in the order the verifications were asked; nextCorr
	// numbers the verifications.
	parked   []parkedProduce
	nextCorr int64
	// ServerBufs holds its effects and the effects the world holds in
	// place; msgs is the pool its transactional and replication messages
	// are carved from (msgpool.go).
	model.ServerBufs
	msgs *msgPool
	// pool holds the arrays produce responses are carved from
	// ([model.Slab]: never reused, they leave the broker): how the broker
	// allocates, not what it knows.
	pool brokerPool

	// Replication (broker_repl.go): the hosted replicas by partition id,
	// the applied metadata and its offset, the replies waiting for
	// acks=all.
	reps       []*replica
	meta       []model.PartitionState
	metaOffset int64
	pending    []pendingReply
	// uncleanRestart: the broker restarted unclean and no heartbeat was
	// answered since (BrokerHeartbeatRequest.UncleanShutdown).
	uncleanRestart bool
	// shut is the controlled shutdown in progress (shutdown.go).
	shut shutdownState
	// coordTags are the coordinators' places by key type, as
	// [model.CoordTag]s, -1 when unavailable (findcoord.go).
	coordTags [coordKinds]int32
}

// brokerPool is a broker's allocator state: the chunks its produce
// responses are carved from, and the partitions a Reset reuses. Two brokers that differ only in their pools
// behave alike (a state hash need not cover it).
type brokerPool struct {
	resps model.Slab[model.ProduceResponse]
	parts model.Slab[model.PartitionResponse]
	// spareParts holds the previous run's partitions during a Reset
	// (empty otherwise).
	spareParts []*storage.Partition
	// verify is produce's scratch: a request's verification answers.
	verify []model.ErrCode
	// waits holds the lists of partitions an acks=all answer waits for.
	waits model.Slab[partWait]
	// reclaim: the owner vouched nobody holds the run's responses
	// (Reclaim); the next Reset rewinds the slabs instead of dropping
	// them.
	reclaim bool
}

// Reclaim tells b that nobody holds anything it handed out since its last
// Reset (responses, observations), so that its next Reset reuses that
// memory too. A runner calls it between runs whose results keep no
// message; without it, Reset lets that memory go.
func (b *Broker) Reclaim() { b.pool.reclaim = true }

// parkedProduce is a produce request waiting for its verification answer.
type parkedProduce struct {
	from model.Peer
	req  *model.ProduceRequest
	// verify[i] is the verification answer for batch i.
	verify []model.ErrCode
	// corr is the verification's correlation id, asked the partitions
	// it asked about.
	corr  int64
	asked []int32
}

// tokVerify marks a verification's timeout timer; the low bits are its
// correlation id (the expiry check's tokens stay below).
const tokVerify uint64 = 1 << 63

// NewBroker returns a broker with empty logs for the partitions it leads.
func NewBroker(cfg BrokerConfig) *Broker {
	b := &Broker{}
	b.Reset(cfg)
	return b
}

// Reset makes b a new broker with settings cfg: afterwards it behaves
// exactly as NewBroker(cfg) would, and equals it field by field but for its
// allocator state, while keeping memory it already has: its partitions'
// logs and producer maps, its lists, its effect and observation buffers.
// Nothing of its previous run stays reachable from it: log entries, parked
// requests, armed rejects and replication state are dropped, and the slabs
// its produce responses were carved from are let go (a previous run's
// holder of a response keeps it intact). What [storage.Partition.Log]
// returned before is invalid afterwards; a [storage.Partition] pointer b
// handed out before may now be one of the new run's partitions. Reset of
// the zero Broker is NewBroker.
func (b *Broker) Reset(cfg BrokerConfig) {
	// The previous run's partitions are reset in place for the new run,
	// each for the partition it was if it is still hosted (newPartition).
	spare := b.pool.spareParts[:0]
	pool := brokerPool{}
	if b.pool.reclaim {
		pool.resps, pool.parts, pool.waits = b.pool.resps, b.pool.parts, b.pool.waits
		pool.resps.Rewind()
		pool.parts.Rewind()
		pool.waits.Rewind()
	}
	// The buffers and the message pool are kept either way; the pool's
	// slabs only when reclaimed.
	bufs, msgs := b.ServerBufs, b.msgs
	if msgs != nil {
		msgs.reclaim = b.pool.reclaim
	}
	bufs.Clear()
	resetPool(&msgs)
	for i := len(b.parts) - 1; i >= 0; i-- {
		if p := b.parts[i]; p != nil {
			spare = append(spare, p)
		}
	}
	*b = Broker{
		cfg:        cfg,
		parts:      model.Sized(b.parts, len(cfg.Leaders)),
		notReady:   model.Sized(b.notReady, len(cfg.Leaders)),
		expiry:     model.NewCheckTimer(),
		retention:  model.NewCheckTimer(),
		ServerBufs: bufs,
		msgs:       msgs,
		// The slabs are let go (their responses left the broker),
		// unless the owner reclaimed them.
		pool: pool,
		meta: b.meta,
	}
	b.pool.spareParts = spare
	if b.Replicated() {
		b.initReplicas()
	} else {
		b.meta = nil
		for i, l := range cfg.Leaders {
			if l == cfg.ID {
				b.parts[i] = b.newPartition(int32(i))
				b.notReady[i] = cfg.NotReadyBatches
			}
		}
	}
	// Partitions no longer hosted go, with their logs.
	b.pool.spareParts = model.Emptied(b.pool.spareParts)
}

// newPartition returns an empty partition id: one of the previous run's
// (the last in spareParts), reset, or a new one.
func (b *Broker) newPartition(id int32) *storage.Partition {
	n := len(b.pool.spareParts)
	if n == 0 {
		return storage.NewPartition(id, b.cfg.Partition)
	}
	p := b.pool.spareParts[n-1]
	b.pool.spareParts[n-1] = nil
	b.pool.spareParts = b.pool.spareParts[:n-1]
	p.Reset(id, b.cfg.Partition)
	return p
}

// Config returns the broker's settings.
func (b *Broker) Config() BrokerConfig { return b.cfg }

// Partitions returns the partitions the broker leads (with replication:
// hosts), in id order.
func (b *Broker) Partitions() []*storage.Partition {
	var ps []*storage.Partition
	for _, p := range b.parts {
		if p != nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// Partition returns partition id, or nil if the broker does not lead (with
// replication: host) it.
func (b *Broker) Partition(id int32) *storage.Partition {
	if id < 0 || int(id) >= len(b.parts) {
		return nil
	}
	return b.parts[id]
}

// ArmReject arms a planned reject.
func (b *Broker) ArmReject(r RejectRule) { b.rejects = append(b.rejects, r) }

// EditRejects calls f on the armed rejects, which it may change and
// reorder in place (a world restored from a saved state renumbers them to
// a longer plan and orders them as a run of that plan arms them).
func (b *Broker) EditRejects(f func([]RejectRule)) { f(b.rejects) }

// Step handles a produce request, a verification answer, a marker write,
// or the break of its connection to the coordinator.
func (b *Broker) Step(now sim.Time, from model.Peer, m model.Message) []model.Out {
	b.begin()
	switch m := m.(type) {
	case *model.ProduceRequest:
		b.produce(now, from, m)
	case *model.VerifyPartitionsResponse:
		b.verified(now, m)
	case *model.WriteTxnMarkersRequest:
		b.writeMarkers(now, from, m)
	case *model.Disconnected:
		switch {
		case m.Dest == model.DestCoordinator:
			b.verifyFailed(now, -1)
		case b.Replicated():
			b.replDisconnected(now, m.Dest)
		}
	case *model.MetadataRequest:
		b.metadataRequest(from, m)
	case *model.FindCoordinatorRequest:
		b.findCoordinator(from, m) // findcoord.go
	case *model.ConsumerFetchRequest:
		b.consumerFetch(from, m)
	case *model.ListOffsetsRequest:
		b.listOffsets(from, m)
	case *model.DescribeProducersRequest:
		b.describeProducers(from, m) // admin.go
	case *model.FetchRequest:
		b.fetchRequest(now, from, m)
	case *model.FetchResponse:
		b.fetchResponse(now, from, m)
	case *model.MetadataUpdate:
		b.applyMetadata(now, m)
	case *model.AlterPartitionResponse:
		if r := b.rep(m.Partition); r != nil {
			b.leaderEffects(now, r, r.ls.OnAlterPartitionResponse(now, m))
		}
	case *model.BrokerHeartbeatResponse:
		b.uncleanRestart = false
		b.shutdownAnswer(now, m)
	default:
		panic("model: a broker cannot handle " + string(m.AppendDescription(nil)))
	}
	b.armExpiry(now)
	return b.Outs
}

// produce handles a produce request. Transactional batches that open a
// transaction on their partition are first verified with the coordinator
// (KIP-890 part 1, ReplicaManager.handleProduceAppend), or, for a
// transaction version 2 producer (Produce v12), added to its transaction
// by the leader (KIP-890 part 2): the request waits for the answer.
func (b *Broker) produce(now sim.Time, from model.Peer, req *model.ProduceRequest) {
	var ask *model.VerifyPartitionsRequest
	// The answers, in scratch memory unless the request waits for them.
	verify := model.Sized(b.pool.verify, len(req.Batches))
	b.pool.verify = verify
	for i := range req.Batches {
		bt := &req.Batches[i]
		p := b.Partition(bt.Partition)
		if p == nil || !bt.Transactional || p.Config().NoPartitionVerification && !req.TransactionV2 {
			continue
		}
		if e := p.Producer(bt.PID); e != nil && e.TxnFirstOffset >= 0 && (!req.TransactionV2 || e.Epoch == bt.Epoch) {
			// An open transaction of this producer at this epoch: the
			// partition is in it already. (A batch of a later epoch
			// racing ahead of the markers is asked about: KAFKA-18575
			// matches the open transaction by producer id and epoch.)
			continue
		}
		if ask == nil {
			b.nextCorr++
			ask = model.Carve(&b.msgs.verifyReqs, model.VerifyPartitionsRequest{CorrelationID: b.nextCorr, TransactionalID: req.TransactionalID, PID: bt.PID, Epoch: bt.Epoch, Add: req.TransactionV2,
				Partitions: b.msgs.parts.Slice(len(req.Batches) - i)[:0]}) // room for every batch left
		}
		ask.Partitions = append(ask.Partitions, bt.Partition)
		p.StartVerification(bt.PID, bt.Epoch, bt.FirstSeq)
	}
	if ask == nil {
		b.appendBatches(now, from, req, verify, nil)
		return
	}
	// The parked request keeps its own copy of the answers so far (verify
	// is produce's scratch).
	kept := b.msgs.errs.Slice(len(verify))
	copy(kept, verify)
	b.parked = append(b.parked, parkedProduce{from: from, req: req, verify: kept, corr: ask.CorrelationID, asked: ask.Partitions})
	b.Outs = append(b.Outs, model.Out{Kind: model.OutSend, Dest: model.DestCoordinator, Msg: ask})
	b.Outs = append(b.Outs, model.Out{Kind: model.OutWake, At: now.Add(b.verificationTimeout()), Timer: tokVerify | uint64(ask.CorrelationID)})
}

func (b *Broker) verificationTimeout() time.Duration {
	if b.cfg.VerificationTimeout <= 0 {
		return 30 * time.Second
	}
	return b.cfg.VerificationTimeout
}

// verified resumes the parked produce request the answer is for; an
// answer to a verification that failed already (timed out, or its
// connection broke) is ignored.
func (b *Broker) verified(now sim.Time, m *model.VerifyPartitionsResponse) {
	i := b.parkedIndex(m.CorrelationID)
	if i < 0 {
		return
	}
	pk := b.parked[i]
	b.parked = append(b.parked[:i:i], b.parked[i+1:]...)
	for i := range pk.req.Batches {
		for j, p := range m.Partitions {
			if p == pk.req.Batches[i].Partition {
				pk.verify[i] = m.Errs[j]
			}
		}
	}
	b.appendBatches(now, pk.from, pk.req, pk.verify, pk.asked)
}

func (b *Broker) parkedIndex(corr int64) int {
	for i := range b.parked {
		if b.parked[i].corr == corr {
			return i
		}
	}
	return -1
}

// verifyFailed fails verification corr (every parked one for corr < 0:
// the connection to the coordinator broke) as Kafka's
// AddPartitionsToTxnManager does when its request is disconnected or
// times out: every partition it asked about gets NETWORK_EXCEPTION
// (AddPartitionsToTxnManager.scala l.202-204), which the produce request
// sees as the retriable NOT_ENOUGH_REPLICAS (ReplicaManager l.898-903,
// [storage.AppendOptions.Verification]). The requests are answered in the order
// they were parked.
func (b *Broker) verifyFailed(now sim.Time, corr int64) {
	var failed []parkedProduce
	if corr < 0 {
		failed, b.parked = b.parked, nil
	} else if i := b.parkedIndex(corr); i >= 0 {
		failed = []parkedProduce{b.parked[i]}
		b.parked = append(b.parked[:i:i], b.parked[i+1:]...)
	}
	for _, pk := range failed {
		for i := range pk.req.Batches {
			for _, p := range pk.asked {
				if p == pk.req.Batches[i].Partition {
					pk.verify[i] = model.ErrNetworkException
				}
			}
		}
		b.appendBatches(now, pk.from, pk.req, pk.verify, nil)
	}
}

// appendBatches runs the append checks on each batch, one partition at a
// time: a partition the broker does not lead or that is not ready yet
// answers NOT_LEADER_OR_FOLLOWER, a planned reject or a transient
// replication failure NOT_ENOUGH_REPLICAS (retriable; nothing appended),
// and otherwise the partition runs Kafka's append checks. It replies unless
// acks=0. asked are the partitions whose batches were verified with the
// coordinator for this request (their answers are in verify).
func (b *Broker) appendBatches(now sim.Time, from model.Peer, req *model.ProduceRequest, verify []model.ErrCode, asked []int32) {
	var resp *model.ProduceResponse
	if req.Acks != 0 {
		resp = b.pool.resps.New()
		*resp = model.ProduceResponse{CorrelationID: req.CorrelationID, Partitions: b.pool.parts.Slice(len(req.Batches))}
	}
	var waits []partWait
	// notLeader: some partition is answered NOT_LEADER_OR_FOLLOWER, which
	// may carry a leader hint (leaderhint.go).
	notLeader := false
	for i := range req.Batches {
		bt := &req.Batches[i]
		p := b.Partition(bt.Partition)
		if p != nil && !b.Leads(bt.Partition) {
			p = nil
		}
		var r model.AppendResult
		random := false
		switch {
		case p == nil:
			r = model.AppendResult{Err: model.ErrNotLeaderOrFollower, FirstOffset: -1, LastOffset: -1, Reason: "not the leader"}
		case b.notReady[bt.Partition] > 0:
			b.notReady[bt.Partition]--
			r = model.AppendResult{Err: model.ErrNotLeaderOrFollower, FirstOffset: -1, LastOffset: -1, Reason: "partition not ready"}
		default:
			var hit bool
			hit, random = b.transient(from, bt.Partition, &r)
			if hit {
				break
			}
			if b.Replicated() {
				// Partition.appendRecordsToLeader's pre-check: below
				// min.insync.replicas an acks=all batch is refused before
				// any other check.
				if e := b.reps[bt.Partition].ls.CheckAppend(req.Acks); e != model.ErrNone {
					r = model.AppendResult{Err: e, FirstOffset: -1, LastOffset: -1, Reason: "in-sync replicas below min.insync.replicas"}
					break
				}
			}
			v := verify[i]
			if v == model.ErrTransactionAbortable && !req.AbortableError && !req.TransactionV2 {
				// A client below Produce v11 does not know the code
				// (model.ProduceRequest.AbortableError).
				v = model.ErrInvalidTxnState
			}
			r = p.AppendWith(now, *bt, storage.AppendOptions{Verification: v, ImplicitAdd: req.TransactionV2,
				Verified: verify[i] == model.ErrNone && slices.Contains(asked, bt.Partition)})
		}
		if r.Err == model.ErrNotLeaderOrFollower {
			notLeader = true
		}
		o := b.observeNext(model.ObsVerdict)
		o.Peer, o.N, o.Batch, o.Result, o.Random, o.Flag = from.Node, from.ReqNo, *bt, r, random, len(req.Batches) > 1
		if r.Duplicate && p != nil {
			o.Orig, o.OrigFound = p.FindEntry(r.FirstOffset)
		}
		if resp != nil {
			resp.Partitions[i] = model.PartitionResponse{Partition: bt.Partition, Err: r.Err, BaseOffset: r.FirstOffset, LogStartOffset: r.LogStartOffset}
		}
		if b.Replicated() && p != nil && r.Err == model.ErrNone {
			id, err := b.leaderAppend(now, bt.Partition, r, !r.Duplicate, req.Acks, b.produceTimeout(req))
			if id != 0 {
				if waits == nil {
					waits = b.pool.waits.Slice(len(req.Batches))[:0]
				}
				waits = append(waits, partWait{part: bt.Partition, id: id, idx: i})
			} else if resp != nil && err != model.ErrNone {
				resp.Partitions[i].Err = err
			}
		}
	}
	for i := range b.rejects {
		if rr := &b.rejects[i]; rr.hit {
			rr.hit, rr.used = false, true
		}
	}
	if resp != nil && len(waits) > 0 {
		b.pending = append(b.pending, pendingReply{from: from, msg: resp, waits: waits, hints: req.LeaderHints})
		return
	}
	if resp != nil {
		if notLeader && req.LeaderHints && b.sendsLeaderHints() {
			b.fillLeaderHints(resp)
		}
		b.Outs = append(b.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: resp})
	}
}

// transient decides whether the batch of partition part is answered with a
// transient error: from an armed reject of this request, or from the
// broker.transient_error draw, which is always made. It reports a hit, and
// whether the hit was the random draw.
func (b *Broker) transient(from model.Peer, part int32, r *model.AppendResult) (hit, random bool) {
	draw := sim.Chance(b.cfg.Rand, b.cfg.TransientPPM)
	for i := range b.rejects {
		rr := &b.rejects[i]
		if !rr.used && rr.N == from.ReqNo && rr.Client == from.Node && (rr.Part < 0 || rr.Part == part) {
			if rr.Part >= 0 {
				rr.used = true
			}
			if !rr.hit && rr.Line != "" {
				b.observe(model.Obs{Kind: model.ObsFault, N: int64(rr.Action), Text: rr.Line})
			}
			rr.hit = true
			*r = model.AppendResult{Err: rr.Err, FirstOffset: -1, LastOffset: -1, Reason: "plan: reject"}
			return true, false
		}
	}
	if !draw || b.cfg.MuteRandom {
		return false, false
	}
	*r = model.AppendResult{Err: model.ErrNotEnoughReplicas, FirstOffset: -1, LastOffset: -1, Reason: "transient: in-sync replicas below min.insync.replicas"}
	return true, true
}

// writeMarkers appends the coordinator's markers and answers with one
// error per marker.
func (b *Broker) writeMarkers(now sim.Time, from model.Peer, m *model.WriteTxnMarkersRequest) {
	resp := model.Carve(&b.msgs.markerResps, model.WriteTxnMarkersResponse{CorrelationID: m.CorrelationID, TransactionalID: m.TransactionalID, Errs: b.msgs.errs.Slice(len(m.Markers))})
	var waits []partWait
	for i, mk := range m.Markers {
		p := b.Partition(mk.Partition)
		r := model.AppendResult{Err: model.ErrNotLeaderOrFollower, FirstOffset: -1, LastOffset: -1}
		if p != nil && b.Leads(mk.Partition) {
			r = p.AppendMarker(now, mk.PID, mk.Epoch, mk.CoordinatorEpoch, mk.Marker)
		}
		resp.Errs[i] = r.Err
		b.observe(model.Obs{Kind: model.ObsMarker, Partition: mk.Partition, PID: mk.PID, Epoch: mk.Epoch, Marker: mk.Marker, Err: r.Err, Result: r})
		if b.Replicated() && r.Err == model.ErrNone {
			// Markers are written with acks=-1 (TransactionMarkerRequestCompletionHandler's
			// WriteTxnMarkers is appended with requiredAcks -1, RM#appendRecords).
			r.LastOffset = r.FirstOffset
			if id, err := b.leaderAppend(now, mk.Partition, r, true, -1, 30*time.Second); id != 0 {
				waits = append(waits, partWait{part: mk.Partition, id: id, idx: i})
			} else {
				resp.Errs[i] = err
			}
		}
	}
	if len(waits) > 0 {
		b.pending = append(b.pending, pendingReply{from: from, msg: resp, waits: waits})
		return
	}
	b.Outs = append(b.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: resp})
}

// Wake runs the producer-state expiry check due at the token's boundary
// (ProducerStateManager.removeExpiredProducers, every
// producer.id.expiration.check.interval.ms), or a verification's timeout:
// the produce request waiting for it is answered, and the connection to
// the coordinator is closed (NetworkClient disconnects a node whose
// request timed out, failing the others in flight on it).
func (b *Broker) Wake(now sim.Time, token uint64) []model.Out {
	b.begin()
	if token&tokVerify != 0 {
		if b.parkedIndex(int64(token&^tokVerify)) >= 0 {
			b.Outs = append(b.Outs, model.Out{Kind: model.OutClose, Dest: model.DestCoordinator})
			b.verifyFailed(now, -1)
		}
		b.armExpiry(now)
		return b.Outs
	}
	if token&tokRetention != 0 {
		b.retentionWake(now, token)
		b.armExpiry(now)
		return b.Outs
	}
	if token&tokRepl != 0 && b.Replicated() {
		b.replWake(now, token)
		b.armExpiry(now)
		return b.Outs
	}
	at, ok := b.expiry.Fire(token)
	if !ok {
		return b.Outs
	}
	for _, p := range b.parts {
		if p == nil {
			continue
		}
		for _, pid := range p.ExpireProducers(at) {
			b.observe(model.Obs{Kind: model.ObsExpired, Partition: p.ID, PID: pid, Until: at})
		}
	}
	b.armExpiry(now)
	return b.Outs
}

// armExpiry asks for a wake-up at the first check boundary at which some
// producer state can expire, if there is such state: an idle broker with
// nothing to expire sets no timer, so runs still drain. The boundary is
// never before now: an entry's timestamp is its batch's CreateTime, which
// can be long past (a batch retried late, a client clock behind), and such
// an entry expires at the next check.
func (b *Broker) armExpiry(now sim.Time) {
	if b.cfg.Partition.Retention != nil {
		b.armRetention(now)
	}
	every := sim.Time(b.cfg.ExpirationCheckInterval)
	if every <= 0 {
		return
	}
	next := sim.Time(-1)
	for _, p := range b.parts {
		if p == nil {
			continue
		}
		if t, ok := p.NextExpiry(); ok && (next < 0 || t < next) {
			next = t
		}
	}
	if next < 0 {
		return
	}
	if o, ok := b.expiry.Arm(max(next, now), every); ok {
		b.Outs = append(b.Outs, o)
	}
}

// Crash loses the broker's volatile state: a parked request and the
// expiry timer. Logs, snapshots and armed plan rejects survive.
func (b *Broker) Crash() {
	b.parked = nil
	b.shut = shutdownState{}
	b.expiry.Stop()
	b.retention.Stop()
	if b.Replicated() {
		b.replCrash()
	}
}

// Restart rebuilds every led partition's producer state from its snapshot
// and log (clean: from a final snapshot), or with RebuildNone drops it,
// and reports each partition's state check (INV-STATE).
func (b *Broker) Restart(now sim.Time, clean bool) []model.Out {
	b.begin()
	for _, p := range b.parts {
		if p == nil {
			continue
		}
		p.Restart(now, clean)
		if b.cfg.RebuildNone {
			p.DropState()
		}
		b.observe(model.Obs{Kind: model.ObsStateCheck, Partition: p.ID, Text: p.StateDiff(now)})
	}
	b.armExpiry(now)
	if b.Replicated() {
		// The restarted broker heartbeats at once (and gets the
		// metadata it missed) and runs its ISR check again.
		b.uncleanRestart = !clean
		b.start(now)
	}
	return b.Outs
}

func (b *Broker) observe(o model.Obs) { b.Outs = append(b.Outs, b.Obs.Add(&o)) }

// observeNext reports an observation of kind k, which the caller fills in
// at once (ObsSlab.Next).
func (b *Broker) observeNext(k model.ObsKind) *model.Obs {
	o, out := b.Obs.Next(k)
	b.Outs = append(b.Outs, out)
	return o
}

// begin starts a call: the previous call's effects are dropped.
func (b *Broker) begin() {
	b.Outs = b.Outs[:0]
	b.Obs.Reset()
}

var _ model.Server = (*Broker)(nil)

var _ model.EffectHolder = (*Broker)(nil)
