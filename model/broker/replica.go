package broker

import (
	"slices"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/storage"
	"github.com/idemsim/idemsim/sim"
)

// The leader's side of replication for one partition: follower
// bookkeeping, ISR changes, the high watermark, acks=all waits and parked
// follower fetches.
// Citations are to apache/kafka@1eb7644349cb:
// core/src/main/scala/kafka/cluster/Partition.scala (P),
// core/src/main/scala/kafka/cluster/Replica.scala (RS),
// core/src/main/scala/kafka/server/DelayedProduce.scala (DP),
// core/src/main/scala/kafka/server/DelayedFetch.scala (DF),
// core/src/main/scala/kafka/server/ReplicaManager.scala (RM).

// DefaultReplicaLagTimeMax is replica.lag.time.max.ms's default (30000 ms
// since Kafka 2.5, KIP-537; 10000 before).
const DefaultReplicaLagTimeMax = 30 * time.Second

// never is a time before any simulated time: Kafka's 0 ms for "never
// caught up" or "never fetched", which with real clocks is decades ago.
const never = sim.Time(-1 << 62)

// LeaderConfig holds a partition leader's replication settings. The zero
// value is Kafka 4.0's defaults.
type LeaderConfig struct {
	// ReplicaLagTimeMax is replica.lag.time.max.ms; 0 means 30000 ms. The
	// ISR shrink check runs every half of it (P#maybeShrinkIsr:1253).
	ReplicaLagTimeMax time.Duration
	// MinInsyncReplicas is the topic's min.insync.replicas; 0 means 1.
	MinInsyncReplicas int
	// FetchMaxEntries bounds the entries one fetch response carries, a
	// stand-in for replica.fetch.max.bytes; 0 means no bound.
	FetchMaxEntries int
	// Version is the broker's Kafka version as major*100+minor (307 for
	// 3.7); 0 means 4.0. Before 3.7 (KAFKA-15583) the high watermark
	// advances while the committed ISR is below min.insync.replicas
	// (P#maybeIncrementLeaderHW had no such guard), so an ISR shrink after
	// an acks=all append completes the wait with
	// NOT_ENOUGH_REPLICAS_AFTER_APPEND; from 3.7 it ends in
	// REQUEST_TIMED_OUT with the data left in the log.
	Version int
}

func (c LeaderConfig) lag() time.Duration {
	if c.ReplicaLagTimeMax <= 0 {
		return DefaultReplicaLagTimeMax
	}
	return c.ReplicaLagTimeMax
}

func (c LeaderConfig) minISR() int { return max(c.MinInsyncReplicas, 1) }

// hwGuard reports whether KAFKA-15583's guard (no HW advance under min
// ISR, P#maybeIncrementLeaderHW) applies.
func (c LeaderConfig) hwGuard() bool { return c.Version == 0 || c.Version >= 307 }

// ShrinkInterval is the period of the ISR shrink check
// (P#maybeShrinkIsr:1253): half of replica.lag.time.max.ms.
func (c LeaderConfig) ShrinkInterval() time.Duration { return c.lag() / 2 }

// ReplicaState is the leader's view of one remote replica
// (RS#updateFetchStateOrThrow:108).
type ReplicaState struct {
	ID int32
	// LogEndOffset is the replica's last fetch offset; -1 while unknown
	// (after this broker became leader, until the replica fetches).
	LogEndOffset int64
	// LastFetchLeaderLogEndOffset is the leader's LEO at its last fetch.
	LastFetchLeaderLogEndOffset int64
	// LastFetchTime and LastCaughtUpTime are times of the last fetch and
	// of the last time the replica was caught up; very negative for never.
	LastFetchTime, LastCaughtUpTime sim.Time
}

// WaitID names an acks=all wait ([LeaderState.AwaitCommit]).
type WaitID uint64

// ProduceCompletion is a finished acks=all wait and its partition error
// (DP#onComplete:132): NONE, NOT_ENOUGH_REPLICAS_AFTER_APPEND,
// REQUEST_TIMED_OUT or NOT_LEADER_OR_FOLLOWER. The data stays in the log
// whatever the error.
type ProduceCompletion struct {
	ID  WaitID
	Err model.ErrCode
}

// FetchReply is a parked follower fetch that is answered now: the broker
// sends Resp as an OutReply to Peer.
type FetchReply struct {
	Peer model.Peer
	Resp *model.FetchResponse
}

// LeaderEffects is what a [LeaderState] call asks its broker to do. Its
// slices are the LeaderState's and valid until its next call.
type LeaderEffects struct {
	// HWAdvanced is true when the high watermark rose.
	HWAdvanced bool
	// Completed are the acks=all waits that finished.
	Completed []ProduceCompletion
	// Fetches are parked fetches to answer now.
	Fetches []FetchReply
	// Alter, when not nil, is an ISR change to send to the controller.
	Alter *model.AlterPartitionRequest
}

type isrPending uint8

const (
	isrCommitted isrPending = iota
	isrPendingExpand
	isrPendingShrink
)

type produceWait struct {
	id       WaitID
	required int64
	deadline sim.Time
}

type parkedFetch struct {
	peer     model.Peer
	req      model.FetchRequest
	deadline sim.Time
}

// LeaderState is the leader side of one partition on one broker: Kafka's
// cluster.Partition while it leads (P), with the partition's delayed
// produces and delayed follower fetches. It is pure: the broker calls it
// and carries out the [LeaderEffects] it returns. It reads and raises the
// high watermark of its [storage.ReplicaLog]; the broker appends to that log.
//
// A broker that does not lead the partition keeps the LeaderState idle
// (IsLeader false); [LeaderState.ApplyMetadata] makes it leader or
// resigns it.
type LeaderState struct {
	cfg  LeaderConfig
	self int32
	log  *storage.ReplicaLog
	// msgs carves its answers, when its broker gave it its pool; nil: a
	// new value each.
	msgs *msgPool

	leader bool
	// st is the committed registration: its ISR is the committed ISR.
	st      model.PartitionState
	pending isrPending
	// maximal is the ISR that HW and acks=all use (P's maximalIsr); proposed
	// the ISR in flight.
	maximal, proposed []int32
	remotes           []ReplicaState
	fenced            []int32
	// epochStart is leaderEpochStartOffset: the LEO when this epoch began.
	epochStart int64

	waits    []produceWait
	nextWait WaitID
	parked   []parkedFetch

	eff LeaderEffects
}

// NewLeaderState returns an idle leader state for broker self's replica
// log.
func NewLeaderState(cfg LeaderConfig, self int32, log *storage.ReplicaLog) *LeaderState {
	return &LeaderState{cfg: cfg, self: self, log: log}
}

// IsLeader reports whether this broker leads the partition.
func (l *LeaderState) IsLeader() bool { return l.leader }

// State returns the committed registration (ISR = committed ISR). The
// caller must not modify it.
func (l *LeaderState) State() model.PartitionState { return l.st }

// MaximalISR returns the ISR the high watermark waits for (P's maximalIsr).
// The caller must not modify it.
func (l *LeaderState) MaximalISR() []int32 { return l.maximal }

// Replica returns the leader's view of remote replica id, and false if id
// is not a remote replica.
func (l *LeaderState) Replica(id int32) (ReplicaState, bool) {
	if i := l.remote(id); i >= 0 {
		return l.remotes[i], true
	}
	return ReplicaState{}, false
}

// ISRChangePending reports whether an AlterPartition is in flight.
func (l *LeaderState) ISRChangePending() bool { return l.pending != isrCommitted }

// EffectiveMinISR is min(min.insync.replicas, number of replicas)
// (P#effectiveMinIsr:389).
func (l *LeaderState) EffectiveMinISR() int {
	return min(l.cfg.minISR(), len(l.remotes)+1)
}

func (l *LeaderState) remote(id int32) int {
	for i := range l.remotes {
		if l.remotes[i].ID == id {
			return i
		}
	}
	return -1
}

func (l *LeaderState) reset() *LeaderEffects {
	l.eff.HWAdvanced = false
	l.eff.Completed = l.eff.Completed[:0]
	l.eff.Fetches = l.eff.Fetches[:0]
	l.eff.Alter = nil
	return &l.eff
}

// SetFenced records the brokers the controller has fenced or that are in
// controlled shutdown (from [model.MetadataUpdate.Fenced] and
// ShuttingDown); such a replica is not ISR-eligible
// (P#isReplicaIsrEligible:1068), so neither joins the ISR nor holds back
// the high watermark.
func (l *LeaderState) SetFenced(ids ...[]int32) {
	l.fenced = l.fenced[:0]
	for _, s := range ids {
		l.fenced = append(l.fenced, s...)
	}
}

func (l *LeaderState) eligible(id int32) bool { return !slices.Contains(l.fenced, id) }

// ApplyMetadata applies the controller's registration of the partition
// (RM#applyDelta:2895). A registration whose partition epoch is not newer than
// the applied one is ignored (P#makeLeader:722). If it names another leader
// (or none) while this broker leads, the broker resigns: every acks=all wait
// ends NOT_LEADER_OR_FOLLOWER and parked fetches are answered with that error
// (RM#completeDelayedOperationsWhenNotPartitionLeader:473). If it names this
// broker with a new leader epoch, the broker becomes leader
// (P#makeLeader:722): the epoch begins at the log end in the epoch cache, each
// remote replica is reset (last caught up now if in the ISR, else never;
// offsets unknown if this broker did not lead before) and the high watermark
// rule runs. With the same leader epoch it is an ISR change: the committed ISR
// and partition epoch are taken and any change in flight is forgotten. The
// returned effects are valid until the next call.
func (l *LeaderState) ApplyMetadata(now sim.Time, st model.PartitionState) LeaderEffects {
	eff := l.reset()
	if l.st.Replicas != nil && st.PartitionEpoch <= l.st.PartitionEpoch {
		return *eff
	}
	if st.Leader != l.self {
		l.st = st.Clone()
		if l.leader {
			l.resign()
		}
		return *eff
	}
	newEpoch := !l.leader || st.LeaderEpoch > l.st.LeaderEpoch
	wasLeader := l.leader
	prev := l.st.Replicas
	l.st = st.Clone()
	l.leader = true
	l.pending = isrCommitted
	l.maximal = append(l.maximal[:0], l.st.ISR...)
	if newEpoch {
		l.log.BeginEpoch(st.LeaderEpoch)
		old := l.remotes
		l.remotes = make([]ReplicaState, 0, len(st.Replicas))
		for _, id := range st.Replicas {
			if id == l.self {
				continue
			}
			r := ReplicaState{ID: id, LogEndOffset: -1, LastFetchLeaderLogEndOffset: -1, LastFetchTime: never}
			if wasLeader {
				for _, o := range old {
					if o.ID == id {
						r = o
					}
				}
			}
			r.LastCaughtUpTime = never
			if slices.Contains(st.ISR, id) {
				r.LastCaughtUpTime = now
			}
			l.remotes = append(l.remotes, r)
		}
		l.epochStart = l.log.LogEndOffset()
	} else if !slices.Equal(prev, st.Replicas) {
		l.reassigned(st.Replicas)
	}
	l.maybeIncrementHW(now)
	return *eff
}

// reassigned follows a change of the replica set within the leader epoch
// (a reassignment adding replicas: PCB bumps the epoch only when
// replicas leave): P#makeLeader's updateAssignmentAndIsr keeps the state
// of the remote replicas that stay and starts an added one unknown (no
// fetch yet, never caught up), so that it joins the ISR only once it
// caught up (P#maybeExpandIsr).
func (l *LeaderState) reassigned(replicas []int32) {
	old := l.remotes
	l.remotes = make([]ReplicaState, 0, len(replicas))
	for _, id := range replicas {
		if id == l.self {
			continue
		}
		r := ReplicaState{ID: id, LogEndOffset: -1, LastFetchLeaderLogEndOffset: -1, LastFetchTime: never, LastCaughtUpTime: never}
		for _, o := range old {
			if o.ID == id {
				r = o
			}
		}
		l.remotes = append(l.remotes, r)
	}
}

// resign ends leadership (the caller has reset l.eff).
func (l *LeaderState) resign() {
	l.leader = false
	l.pending = isrCommitted
	for _, w := range l.waits {
		l.eff.Completed = append(l.eff.Completed, ProduceCompletion{ID: w.id, Err: model.ErrNotLeaderOrFollower})
	}
	l.waits = l.waits[:0]
	for _, f := range l.parked {
		l.eff.Fetches = append(l.eff.Fetches, FetchReply{Peer: f.peer, Resp: l.errFetch(&f.req, model.ErrNotLeaderOrFollower)})
	}
	l.parked = l.parked[:0]
}

// Resign ends leadership without new metadata (the broker stops, or the
// partition is removed): as [LeaderState.ApplyMetadata] naming another
// leader.
func (l *LeaderState) Resign() LeaderEffects {
	eff := l.reset()
	if l.leader {
		l.resign()
	}
	return *eff
}

// CheckAppend runs the leader's checks before a produce append
// (P#appendRecordsToLeader:1384): not leader is NOT_LEADER_OR_FOLLOWER;
// acks=-1 with the committed ISR below the effective min ISR is
// NOT_ENOUGH_REPLICAS and nothing may be appended (also for an idempotent
// retry of a written batch: the check precedes duplicate detection). ErrNone
// means append.
func (l *LeaderState) CheckAppend(acks int8) model.ErrCode {
	if !l.leader {
		return model.ErrNotLeaderOrFollower
	}
	if acks == -1 && len(l.st.ISR) < l.EffectiveMinISR() {
		return model.ErrNotEnoughReplicas
	}
	return model.ErrNone
}

// OnLeaderAppend runs after the broker appended to the leader's log (and
// stamped it with [storage.ReplicaLog.OnLeaderAppend]): the high watermark rule
// (P#maybeIncrementLeaderHW:1174), completing acks=all waits if it rose,
// and answering parked fetches, which now have data (DF#tryComplete:75).
func (l *LeaderState) OnLeaderAppend(now sim.Time) LeaderEffects {
	eff := l.reset()
	if !l.leader {
		return *eff
	}
	l.maybeIncrementHW(now)
	for _, f := range l.parked {
		l.eff.Fetches = append(l.eff.Fetches, FetchReply{Peer: f.peer, Resp: l.read(&f.req)})
	}
	l.parked = l.parked[:0]
	return *eff
}

// AwaitCommit starts an acks=all wait for one appended partition of a
// produce (DP): requiredOffset is lastOffset+1 of the batch (of the
// original batch for a duplicate), timeout the request's TimeoutMs. It
// checks at once (P#checkEnoughReplicasReachOffset:1111): if the high
// watermark has reached requiredOffset it returns done with NONE, or
// NOT_ENOUGH_REPLICAS_AFTER_APPEND when the maximal ISR is below the
// effective min ISR; not leader is done with NOT_LEADER_OR_FOLLOWER.
// Otherwise the wait is kept and ends later in a [ProduceCompletion]
// with the returned id: when the high watermark passes requiredOffset,
// at now+timeout (REQUEST_TIMED_OUT, data left in the log), or on
// resignation.
func (l *LeaderState) AwaitCommit(now sim.Time, requiredOffset int64, timeout time.Duration) (WaitID, bool, model.ErrCode) {
	if done, err := l.checkEnough(requiredOffset); done {
		return 0, true, err
	}
	l.nextWait++
	l.waits = append(l.waits, produceWait{id: l.nextWait, required: requiredOffset, deadline: now.Add(timeout)})
	return l.nextWait, false, model.ErrNone
}

func (l *LeaderState) checkEnough(required int64) (bool, model.ErrCode) {
	if !l.leader {
		return true, model.ErrNotLeaderOrFollower
	}
	if l.log.HighWatermark() >= required {
		if len(l.maximal) >= l.EffectiveMinISR() {
			return true, model.ErrNone
		}
		return true, model.ErrNotEnoughReplicasAfterAppend
	}
	return false, model.ErrNone
}

// maybeIncrementHW is the high watermark rule
// (P#maybeIncrementLeaderHW:1174); when the HW rises it completes the
// waits it satisfies.
func (l *LeaderState) maybeIncrementHW(now sim.Time) {
	if l.cfg.hwGuard() && len(l.st.ISR) < l.EffectiveMinISR() {
		return
	}
	leo := l.log.LogEndOffset()
	c := leo
	for i := range l.remotes {
		r := &l.remotes[i]
		if r.LogEndOffset < c && (slices.Contains(l.maximal, r.ID) || (l.caughtUp(r, now, leo) && l.eligible(r.ID))) {
			c = r.LogEndOffset
		}
	}
	if !l.log.MaybeIncrementHighWatermark(c) {
		return
	}
	l.eff.HWAdvanced = true
	n := 0
	for _, w := range l.waits {
		if done, err := l.checkEnough(w.required); done {
			l.eff.Completed = append(l.eff.Completed, ProduceCompletion{ID: w.id, Err: err})
			continue
		}
		l.waits[n] = w
		n++
	}
	l.waits = l.waits[:n]
}

// caughtUp is RS#isCaughtUp:67.
func (l *LeaderState) caughtUp(r *ReplicaState, now sim.Time, leo int64) bool {
	return r.LogEndOffset == leo || now.Sub(r.LastCaughtUpTime) <= l.cfg.lag()
}

// OnFetch handles a follower's fetch (RM#readFromLog:1781,
// P#fetchRecords:1428, P#readRecords:1517): the checks in Kafka's order,
// the divergence check, the read up to the log end, then the follower
// bookkeeping (RS#updateFetchStateOrThrow:108), ISR expansion
// (P#maybeExpandIsr:1030) and the high watermark rule
// (P#maybeIncrementLeaderHW:1174). It returns the response, or nil when
// the fetch is parked (no data, no error, MaxWaitMs > 0;
// RM#fetchMessages:1690): a parked fetch is answered in a later
// [LeaderEffects.Fetches] when data is appended, at its deadline
// ([LeaderState.Tick]) or on resignation. The response's high watermark
// is the value before this fetch took effect (P#readRecords:1517 captures
// it first).
func (l *LeaderState) OnFetch(now sim.Time, from model.Peer, req *model.FetchRequest) (*model.FetchResponse, LeaderEffects) {
	eff := l.reset()
	switch {
	case !l.leader:
		return l.errFetch(req, model.ErrNotLeaderOrFollower), *eff
	case req.CurrentLeaderEpoch < l.st.LeaderEpoch:
		return l.errFetch(req, model.ErrFencedLeaderEpoch), *eff
	case req.CurrentLeaderEpoch > l.st.LeaderEpoch:
		return l.errFetch(req, model.ErrUnknownLeaderEpoch), *eff
	}
	ri := l.remote(req.ReplicaID)
	if ri < 0 {
		return l.errFetch(req, model.ErrUnknownLeaderEpoch), *eff
	}
	hw, leo := l.log.HighWatermark(), l.log.LogEndOffset()
	if req.LastFetchedEpoch != model.UndefinedEpoch {
		e, end := l.log.EndOffsetForEpoch(req.LastFetchedEpoch)
		if end == model.UndefinedEpochOffset || e == model.UndefinedEpoch || req.FetchOffset < 0 {
			return l.errFetch(req, model.ErrOffsetOutOfRange), *eff
		}
		if e < req.LastFetchedEpoch || end < req.FetchOffset {
			resp := l.respHeader(req, hw)
			resp.DivergingEpoch, resp.DivergingEndOffset = e, end
			return resp, *eff
		}
	}
	if req.FetchOffset < 0 || req.FetchOffset > leo {
		// The read throws OffsetOutOfRangeException.
		return l.errFetch(req, model.ErrOffsetOutOfRange), *eff
	}
	var resp *model.FetchResponse
	if req.FetchOffset < leo || req.MaxWaitMs <= 0 {
		resp = l.respHeader(req, hw)
		resp.Batches = l.readBatches(req.FetchOffset)
	} else {
		l.parked = append(l.parked, parkedFetch{peer: from, req: *req, deadline: now.Add(time.Duration(req.MaxWaitMs) * time.Millisecond)})
	}
	// RS#updateFetchStateOrThrow:108.
	r := &l.remotes[ri]
	prev := r.LogEndOffset
	switch {
	case req.FetchOffset >= leo:
		r.LastCaughtUpTime = max(r.LastCaughtUpTime, now)
	case req.FetchOffset >= r.LastFetchLeaderLogEndOffset:
		r.LastCaughtUpTime = max(r.LastCaughtUpTime, r.LastFetchTime)
	}
	r.LogEndOffset = req.FetchOffset
	r.LastFetchLeaderLogEndOffset = max(leo, r.LastFetchLeaderLogEndOffset)
	r.LastFetchTime = now
	// P#maybeExpandIsr:1030.
	if l.pending == isrCommitted && !slices.Contains(l.st.ISR, r.ID) &&
		r.LogEndOffset >= hw && r.LogEndOffset >= l.epochStart && l.eligible(r.ID) {
		l.proposed = append(append(l.proposed[:0], l.st.ISR...), r.ID)
		l.maximal = append(l.maximal[:0], l.proposed...)
		l.pending = isrPendingExpand
		eff.Alter = l.alter()
	}
	// P#maybeIncrementLeaderHW:1174, if this follower's LEO changed.
	if r.LogEndOffset != prev {
		l.maybeIncrementHW(now)
	}
	return resp, *eff
}

func (l *LeaderState) respHeader(req *model.FetchRequest, hw int64) *model.FetchResponse {
	var r *model.FetchResponse
	if l.msgs != nil {
		r = l.msgs.replAnswers.New()
	} else {
		r = new(model.FetchResponse)
	}
	*r = model.FetchResponse{CorrelationID: req.CorrelationID, Partition: req.Partition, HighWatermark: hw,
		LeaderEpoch: l.st.LeaderEpoch, DivergingEpoch: model.UndefinedEpoch, DivergingEndOffset: model.UndefinedEpochOffset,
		LogStartOffset: l.log.Part.LogStartOffset()}
	return r
}

// readBatches reads the batches a fetch from offset from gets, into a
// list carved from the pool when there is one.
func (l *LeaderState) readBatches(from int64) []model.ReplicaBatch {
	lo, hi := l.log.Span(from, l.cfg.FetchMaxEntries)
	var dst []model.ReplicaBatch
	if l.msgs != nil && hi > lo {
		dst = l.msgs.replBatches.Slice(hi - lo)[:0]
	}
	return l.log.ReadRange(lo, hi, dst)
}

func (l *LeaderState) errFetch(req *model.FetchRequest, e model.ErrCode) *model.FetchResponse {
	resp := l.respHeader(req, -1)
	resp.Err = e
	return resp
}

// read answers a parked fetch now, without follower bookkeeping
// (DelayedFetch reads again with the current high watermark; the
// bookkeeping ran on arrival, RM#readFromLog:1781).
func (l *LeaderState) read(req *model.FetchRequest) *model.FetchResponse {
	resp := l.respHeader(req, l.log.HighWatermark())
	resp.Batches = l.readBatches(req.FetchOffset)
	return resp
}

func (l *LeaderState) alter() *model.AlterPartitionRequest {
	return &model.AlterPartitionRequest{BrokerID: l.self, Partition: l.st.Partition, LeaderEpoch: l.st.LeaderEpoch,
		PartitionEpoch: l.st.PartitionEpoch, NewISR: slices.Clone(l.proposed)}
}

// MaybeShrinkISR is the periodic ISR shrink check (P#maybeShrinkIsr:1253);
// the broker runs it for every led partition every
// [LeaderConfig.ShrinkInterval] from its start. Unless a change is in
// flight, every committed-ISR follower that is not caught up (RS#isCaughtUp:67) is
// proposed for removal in one AlterPartition; the maximal ISR keeps them
// until the controller commits.
func (l *LeaderState) MaybeShrinkISR(now sim.Time) LeaderEffects {
	eff := l.reset()
	if !l.leader || l.pending != isrCommitted {
		return *eff
	}
	leo := l.log.LogEndOffset()
	l.proposed = l.proposed[:0]
	for _, id := range l.st.ISR {
		if i := l.remote(id); i >= 0 && !l.caughtUp(&l.remotes[i], now, leo) {
			continue
		}
		l.proposed = append(l.proposed, id)
	}
	if len(l.proposed) == len(l.st.ISR) {
		return *eff
	}
	l.pending = isrPendingShrink
	eff.Alter = l.alter()
	return *eff
}

// PendingAlter returns the ISR change in flight again, or nil: its
// request was lost with its connection, and Kafka's AlterPartitionManager
// sends an item whose request failed again (AlterPartitionManager
// handleAlterPartitionResponse / onComplete with a disconnect).
func (l *LeaderState) PendingAlter() *model.AlterPartitionRequest {
	if !l.leader || l.pending == isrCommitted {
		return nil
	}
	return l.alter()
}

// OnAlterPartitionResponse handles the controller's answer to the ISR
// change in flight (P#handleAlterPartitionUpdate:1967,
// P#handleAlterPartitionError:1906). NONE commits the returned
// registration (unless its leader epoch differs or its partition epoch
// is older than the applied one: stale) and runs the high watermark rule;
// OPERATION_NOT_ATTEMPTED and INELIGIBLE_REPLICA revert to the committed
// ISR; any other error leaves the change pending until new metadata.
func (l *LeaderState) OnAlterPartitionResponse(now sim.Time, resp *model.AlterPartitionResponse) LeaderEffects {
	eff := l.reset()
	if !l.leader || l.pending == isrCommitted || resp.Partition != l.st.Partition {
		return *eff
	}
	switch resp.Err {
	case model.ErrNone:
		if resp.State.LeaderEpoch != l.st.LeaderEpoch || resp.State.PartitionEpoch < l.st.PartitionEpoch {
			return *eff
		}
		replicas := l.st.Replicas
		l.st = resp.State.Clone()
		if len(l.st.Replicas) == 0 {
			l.st.Replicas = replicas
		}
		l.pending = isrCommitted
		l.maximal = append(l.maximal[:0], l.st.ISR...)
		l.maybeIncrementHW(now)
	case model.ErrOperationNotAttempted, model.ErrIneligibleReplica:
		l.pending = isrCommitted
		l.maximal = append(l.maximal[:0], l.st.ISR...)
	}
	return *eff
}

// NextDeadline returns the earliest deadline of an acks=all wait or a
// parked fetch, and false when there is none: the broker sets a wake-up
// there and calls [LeaderState.Tick].
func (l *LeaderState) NextDeadline() (sim.Time, bool) {
	var at sim.Time
	ok := false
	for _, w := range l.waits {
		if !ok || w.deadline < at {
			at, ok = w.deadline, true
		}
	}
	for _, f := range l.parked {
		if !ok || f.deadline < at {
			at, ok = f.deadline, true
		}
	}
	return at, ok
}

// Tick expires what is due at now: acks=all waits past their timeout end
// REQUEST_TIMED_OUT (DP#onExpiration; the records stay in the log and may
// still commit), parked fetches past MaxWaitMs are answered with
// what there is (nothing new).
func (l *LeaderState) Tick(now sim.Time) LeaderEffects {
	eff := l.reset()
	n := 0
	for _, w := range l.waits {
		if w.deadline <= now {
			eff.Completed = append(eff.Completed, ProduceCompletion{ID: w.id, Err: model.ErrRequestTimedOut})
			continue
		}
		l.waits[n] = w
		n++
	}
	l.waits = l.waits[:n]
	n = 0
	for _, f := range l.parked {
		if f.deadline <= now {
			eff.Fetches = append(eff.Fetches, FetchReply{Peer: f.peer, Resp: l.read(&f.req)})
			continue
		}
		l.parked[n] = f
		n++
	}
	l.parked = l.parked[:n]
	return *eff
}
