package consumer

import (
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// Consumer is one consumer process (a [model.Server] to the World: it is
// only ever the client end of its connections, so the World wires it as
// a node that talks to servers). It starts with [Consumer.Start]; a crash
// loses everything, positions included, and a restart starts it again
// from the group's committed offsets.
type Consumer struct {
	cfg   Config
	parts []partState
	// leaders and epochs are the metadata: each partition's leader broker
	// index (-1: unknown) and leader epoch (-1: unknown).
	leaders, epochs []int32
	// needMeta: a metadata update is wanted (requestMetadataUpdate);
	// metaBroker is the broker the next Metadata request goes to.
	needMeta   bool
	metaBroker int32
	inflight   []request
	nextCorr   int64
	// nextAutoCommit is when the next auto-commit is due.
	nextAutoCommit sim.Time
	// needOffsets: the committed offsets are still to be fetched (again),
	// not before offsetsAt.
	needOffsets bool
	offsetsAt   sim.Time
	// committing: a commit is in flight; syncWait: the application is
	// blocked in commitSync until it is answered.
	committing, syncWait bool
	// held: with Config.AppCommits, the application is processing the
	// last poll's records and has not called CommitSync yet.
	held bool
	// offsets are the offsets the application asked to commit
	// (Config.AppOffsets), one per assigned partition (-1: none yet).
	offsets []int64
	// pollToken numbers the poll loop's timers; a timer of an older loop
	// (before a crash) is ignored.
	pollToken uint64
	running   bool
	// lastChange is when the consumer last saw a change (Config.Patience).
	lastChange sim.Time
	// rr is the partition the next poll starts collecting from.
	rr int
	// grp is the group membership (Config.Protocol, group.go).
	grp member
	// coord is what the consumer knows of its group coordinator
	// (coordlookup.go); commitAt is when a commit refused for the
	// coordinator's move or load may go again.
	coord    model.CoordLookup
	commitAt sim.Time
	out      []model.Out
	obs      []model.Obs
	ids      []model.RecordID
	log      []model.LogEntry
}

// partition states.
const (
	// stInit: waiting for the group's committed offset.
	stInit uint8 = iota
	// stReset: no position: a ListOffsets by auto.offset.reset is due.
	stReset
	// stFetching: the partition has a position.
	stFetching
	// stFailed: no position and auto.offset.reset=none.
	stFailed
)

type partState struct {
	part     int32
	state    uint8
	position int64
	// busy: a fetch or ListOffsets of the partition is in flight.
	busy bool
	// nextFetch: no fetch before (after an empty answer or an error).
	nextFetch sim.Time
	// hw and lso are the last values a fetch response gave (-1: none).
	hw, lso int64
	buf     completedFetch
}

type reqKind uint8

const (
	reqFetch reqKind = iota
	reqList
	reqMeta
	reqCommit
	reqOffsets
	reqJoin
	reqSync
	reqHeartbeat
	reqLeave
	reqFind
)

// request is a request in flight.
type request struct {
	corr     int64
	kind     reqKind
	dest     int32
	part     int // index into parts, for fetches and ListOffsets
	deadline sim.Time
	// seq is, for a group member's requests, the generation (or, for an
	// OffsetFetch, the assignment) it was sent with.
	seq uint64
}

// New returns a consumer with configuration cfg, not started.
func New(cfg Config) *Consumer {
	c := &Consumer{}
	c.Reset(cfg)
	return c
}

// Reset makes c a new consumer with configuration cfg, keeping memory.
func (c *Consumer) Reset(cfg Config) {
	if cfg.MaxPollRecords <= 0 {
		cfg.MaxPollRecords = 500
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 100 * time.Millisecond
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = 100 * time.Millisecond
	}
	if cfg.Protocol == ProtocolClassic {
		groupDefaults(&cfg)
	}
	*c = Consumer{cfg: cfg, parts: c.parts[:0], leaders: c.leaders[:0], epochs: c.epochs[:0], inflight: c.inflight[:0],
		out: c.out[:0], obs: c.obs[:0], ids: c.ids[:0], log: c.log[:0], pollToken: c.pollToken, grp: member{hbToken: c.grp.hbToken}}
}

// Config returns the consumer's configuration.
func (c *Consumer) Config() Config { return c.cfg }

// Position returns partition part's position, -1 without one.
func (c *Consumer) Position(part int32) int64 {
	for i := range c.parts {
		if c.parts[i].part == part && c.parts[i].state == stFetching {
			return c.parts[i].position
		}
	}
	return -1
}

// Start starts the consumer: bootstrap metadata, then the committed
// offsets or auto.offset.reset, then the poll loop.
func (c *Consumer) Start(now sim.Time) []model.Out {
	c.begin()
	c.start(now)
	c.flushObs()
	return c.out
}

func (c *Consumer) start(now sim.Time) {
	c.startAt(now, nil)
}

// StartAt starts the consumer (again) with the given positions, one per
// assigned partition in order (-1: none, the partition is reset as at
// Start), as an application does with assign and seek before its first
// poll; it fetches no committed offsets. Without positions it is Start.
// A group member (Config.Protocol) ignores positions: it joins.
func (c *Consumer) StartAt(now sim.Time, positions []int64) []model.Out {
	c.begin()
	c.pollToken++
	c.startAt(now, positions)
	c.flushObs()
	return c.out
}

func (c *Consumer) startAt(now sim.Time, positions []int64) {
	c.running = true
	c.leaders = append(c.leaders[:0], c.cfg.Leaders...)
	c.epochs = c.epochs[:0]
	for range c.leaders {
		c.epochs = append(c.epochs, -1)
	}
	c.parts = c.parts[:0]
	for _, p := range c.cfg.Partitions {
		st := stReset
		if c.cfg.Commits {
			st = stInit
		}
		if positions != nil {
			st = stReset
		}
		c.parts = append(c.parts, partState{part: p, state: st, position: -1, hw: -1, lso: -1})
	}
	c.inflight = c.inflight[:0]
	c.needMeta = true
	c.committing, c.syncWait, c.held = false, false, false
	c.coord, c.commitAt = model.CoordLookup{}, 0
	c.offsets = c.offsets[:0]
	for range c.parts {
		c.offsets = append(c.offsets, -1)
	}
	c.nextAutoCommit = now.Add(c.cfg.AutoCommitInterval)
	c.lastChange = now
	c.needOffsets = c.cfg.Commits && positions == nil
	if c.grouped() {
		c.startGroup(now)
		positions = nil
	}
	for i, off := range positions {
		if i < len(c.parts) && off >= 0 {
			c.setPosition(now, i, off, "seek")
		}
	}
	c.poll(now)
}

func (c *Consumer) begin() {
	c.out = c.out[:0]
	c.obs = c.obs[:0]
	c.ids = c.ids[:0]
	c.log = c.log[:0]
}

func (c *Consumer) corr() int64 {
	c.nextCorr++
	return c.nextCorr
}

// send sends m to dest and tracks it.
func (c *Consumer) send(now sim.Time, k reqKind, dest int32, part int, m model.Message) {
	corr := requestCorr(m)
	c.inflight = append(c.inflight, request{corr: corr, kind: k, dest: dest, part: part, deadline: now.Add(c.cfg.RequestTimeout)})
	if part >= 0 {
		c.parts[part].busy = true
	}
	c.out = append(c.out, model.Out{Kind: model.OutSend, Dest: dest, Msg: m})
}

func requestCorr(m model.Message) int64 {
	switch m := m.(type) {
	case *model.ConsumerFetchRequest:
		return m.CorrelationID
	case *model.ListOffsetsRequest:
		return m.CorrelationID
	case *model.MetadataRequest:
		return m.CorrelationID
	case *model.OffsetCommitRequest:
		return m.CorrelationID
	case *model.ConsumerOffsetFetchRequest:
		return m.CorrelationID
	case *model.JoinGroupRequest:
		return m.CorrelationID
	case *model.SyncGroupRequest:
		return m.CorrelationID
	case *model.HeartbeatRequest:
		return m.CorrelationID
	case *model.LeaveGroupRequest:
		return m.CorrelationID
	case *model.FindCoordinatorRequest:
		return m.CorrelationID
	}
	panic("consumer: no correlation id in " + string(m.AppendDescription(nil)))
}

// take removes and returns the in-flight request corr.
func (c *Consumer) take(corr int64) (request, bool) {
	for i, r := range c.inflight {
		if r.corr == corr {
			c.inflight = append(c.inflight[:i], c.inflight[i+1:]...)
			if r.part >= 0 {
				c.parts[r.part].busy = false
			}
			return r, true
		}
	}
	return request{}, false
}

// observe queues an observation.
func (c *Consumer) observe(o model.Obs) {
	c.obs = append(c.obs, o)
}

// flushObs turns the queued observations into effects; the slice they
// point into is not written again during this call.
func (c *Consumer) flushObs() {
	for i := range c.obs {
		c.out = append(c.out, model.Out{Kind: model.OutObserve, Obs: &c.obs[i]})
	}
}

// Wake runs the poll loop's timer.
func (c *Consumer) Wake(now sim.Time, token uint64) []model.Out {
	c.begin()
	if c.running && token == c.pollToken {
		c.poll(now)
	} else if c.running && token&hbBit != 0 {
		c.heartbeatWake(now, token)
	}
	c.flushObs()
	return c.out
}

// Crash loses the process: positions, buffers, requests and timers.
func (c *Consumer) Crash() {
	c.running, c.held = false, false
	c.pollToken++
	c.grp.hbToken++
	c.grp.hbOn = false
	c.inflight = c.inflight[:0]
	for i := range c.parts {
		c.parts[i] = partState{part: c.parts[i].part}
	}
}

// Restart starts the consumer again.
func (c *Consumer) Restart(now sim.Time, clean bool) []model.Out {
	c.begin()
	c.pollToken++
	c.start(now)
	c.flushObs()
	return c.out
}

// Step handles a response or a broken connection.
func (c *Consumer) Step(now sim.Time, from model.Peer, m model.Message) []model.Out {
	c.begin()
	if c.running {
		switch m := m.(type) {
		case *model.ConsumerFetchResponse:
			if r, ok := c.take(m.CorrelationID); ok && r.part >= 0 {
				c.fetched(now, r.part, m)
			}
		case *model.ListOffsetsResponse:
			if r, ok := c.take(m.CorrelationID); ok && r.part >= 0 {
				c.listed(now, r.part, m)
			}
		case *model.MetadataResponse:
			if _, ok := c.take(m.CorrelationID); ok {
				c.metadata(m)
			}
		case *model.OffsetCommitResponse:
			if r, ok := c.take(m.CorrelationID); ok {
				c.committed(now, r, m.Err)
			}
		case *model.ConsumerOffsetFetchResponse:
			if r, ok := c.take(m.CorrelationID); ok {
				if c.coordAnswer(now, "OffsetFetch", m.Err) {
					c.offsetsAt = now.Add(c.cfg.RetryBackoff) // fetchCommittedOffsets: timer.sleep(retryBackoffMs)
				}
				if r.seq == c.grp.assignSeq {
					c.offsetsFetched(now, m)
				} else {
					c.needOffsets = c.cfg.Commits && len(c.parts) > 0
				}
			}
		case *model.JoinGroupResponse:
			if r, ok := c.take(m.CorrelationID); ok {
				c.joined(now, r, m)
			}
		case *model.SyncGroupResponse:
			if r, ok := c.take(m.CorrelationID); ok {
				c.synced(now, r, m)
			}
		case *model.HeartbeatResponse:
			if r, ok := c.take(m.CorrelationID); ok {
				c.heartbeatAnswered(now, r, m)
			}
		case *model.LeaveGroupResponse:
			if _, ok := c.take(m.CorrelationID); ok {
				c.coordAnswer(now, "LeaveGroup", m.Err)
			}
		case *model.FindCoordinatorResponse:
			if _, ok := c.take(m.CorrelationID); ok {
				c.found(now, m)
			}
		case *model.Disconnected:
			c.failDest(now, m.Dest)
		}
	}
	c.flushObs()
	return c.out
}

// failDest fails every request in flight to dest, as NetworkClient does
// when the connection breaks (a disconnect or a request timeout).
func (c *Consumer) failDest(now sim.Time, dest int32) {
	for i := 0; i < len(c.inflight); {
		r := c.inflight[i]
		if r.dest != dest {
			i++
			continue
		}
		c.take(r.corr)
		if dest == model.DestGroupCoordinator {
			c.coordDisconnected()
		}
		switch r.kind {
		case reqFind:
			c.coord.LostFind()
		case reqFetch, reqList:
			if r.part >= 0 {
				c.parts[r.part].nextFetch = now.Add(c.cfg.RetryBackoff)
			}
			c.needMeta = true
		case reqMeta:
			c.needMeta = true
			c.metaBroker = (c.metaBroker + 1) % int32(max(c.cfg.Brokers, 1))
		case reqCommit:
			c.committing = false
			if c.grp.prepCommit {
				c.grp.prepCommit = false
				c.revokeAll()
				c.sendJoin(now)
			}
		case reqOffsets:
			c.needOffsets = true
		case reqJoin, reqSync:
			c.groupFailDest(r.kind)
		}
	}
}

// metadata applies a Metadata response. A partition whose leader epoch
// in the answer is older than the one the consumer has keeps its leader
// (Metadata.updateLatestMetadata, KIP-320: "ignore the new metadata and
// use the previously cached info"), as after a KIP-951 hint that came
// before a stale answer.
func (c *Consumer) metadata(m *model.MetadataResponse) {
	c.needMeta = false
	for i := range c.leaders {
		if i < len(m.Epochs) && m.Epochs[i] >= 0 && m.Epochs[i] < c.epochs[i] {
			continue
		}
		if i < len(m.Leaders) {
			c.leaders[i], c.epochs[i] = m.Leaders[i], m.Epochs[i]
			if m.Leaders[i] < 0 {
				c.needMeta = true
			}
		}
	}
}

// offsetsFetched sets the positions of the partitions the group has
// committed offsets for; the others are reset by auto.offset.reset.
func (c *Consumer) offsetsFetched(now sim.Time, m *model.ConsumerOffsetFetchResponse) {
	if m.Err != model.ErrNone {
		c.needOffsets = true
		if m.Err == model.ErrUnstableOffsetCommit {
			// UnstableOffsetCommitException: retried after
			// retry.backoff.ms (ConsumerCoordinator
			// .fetchCommittedOffsets).
			c.offsetsAt = now.Add(c.cfg.RetryBackoff)
			c.grp.stats.Unstable++
		}
		return
	}
	for i := range c.parts {
		ps := &c.parts[i]
		if ps.state != stInit {
			continue
		}
		if i < len(m.Offsets) && m.Offsets[i] >= 0 {
			c.setPosition(now, i, m.Offsets[i], "committed")
			continue
		}
		ps.state = stReset
	}
}

// setPosition sets partition i's position to off, logging the reset.
func (c *Consumer) setPosition(now sim.Time, i int, off int64, why string) {
	ps := &c.parts[i]
	old := ps.position
	if ps.state != stFetching {
		old = -1
	}
	ps.state, ps.position = stFetching, off
	ps.buf.reset()
	c.observe(model.Obs{Kind: model.ObsConsumerReset, At: now, Partition: ps.part, N: off, Text: why,
		Result: model.AppendResult{FirstOffset: old, LastOffset: off}})
}

// poll is one turn of the application's poll loop
// (ClassicKafkaConsumer.poll): metadata if wanted, positions to reset,
// records to return, fetches to send, the auto-commit, the next turn.
func (c *Consumer) poll(now sim.Time) {
	c.expire(now)
	ready := true
	if c.grouped() {
		ready = c.groupPoll(now)
	}
	if c.needMeta && !c.pending(reqMeta) && c.cfg.Brokers > 0 {
		c.send(now, reqMeta, c.metaBroker, -1, &model.MetadataRequest{CorrelationID: c.corr()})
	}
	if c.needOffsets && !c.pending(reqOffsets) && now >= c.offsetsAt {
		c.sendOffsetFetch(now)
	}
	if c.syncWait && !c.committing && ready && now >= c.commitAt {
		c.commit(now) // commitSync retries a commit that failed
	}
	if !c.syncWait && !c.held && ready {
		c.resetPositions(now)
		if n := c.collect(now); n > 0 && c.cfg.AppCommits {
			c.held = true
		} else if n > 0 && !c.cfg.AutoCommit && c.cfg.Commits && !c.cfg.AppOffsets {
			// commitSync after the records are processed: the
			// application waits for the answer.
			c.commit(now)
			c.syncWait = true
		}
		c.sendFetches(now)
		if c.cfg.AutoCommit && c.cfg.Commits && now >= c.nextAutoCommit {
			// An unknown coordinator is looked up first, and the commit
			// goes once it is found (commitOffsetsAsync:
			// lookupCoordinator, then doCommitOffsetsAsync).
			if _, found := c.coordReady(now); found || c.committing {
				c.nextAutoCommit = now.Add(c.cfg.AutoCommitInterval)
				if !c.committing {
					c.commit(now)
				}
			}
		}
	}
	c.pollToken++
	c.out = append(c.out, model.Out{Kind: model.OutWake, At: now.Add(c.cfg.PollInterval), Timer: c.pollToken, Owed: c.owed(now)})
}

// owed reports whether the consumer's poll loop keeps the run alive: it
// has records to read that it knows of (a position below the bound its
// last fetch showed, or buffered records), or it saw a change less than
// twice Config.Patience ago; a consumer that has long caught up, or
// waits, polls in the background.
func (c *Consumer) owed(now sim.Time) bool {
	if now.Sub(c.lastChange) < 2*c.cfg.Patience {
		return true
	}
	for i := range c.parts {
		ps := &c.parts[i]
		if ps.state != stFetching {
			continue
		}
		bound := ps.hw
		if c.cfg.ReadCommitted {
			bound = ps.lso
		}
		if ps.buf.pending() || ps.position < bound {
			return true
		}
	}
	return false
}

// sendOffsetFetch fetches the committed offsets of the assigned
// partitions (ConsumerCoordinator.fetchCommittedOffsets), once the
// group coordinator is known.
func (c *Consumer) sendOffsetFetch(now sim.Time) {
	tag, ok := c.coordReady(now)
	if !ok {
		return
	}
	c.needOffsets = false
	parts := c.cfg.Partitions
	if c.grouped() {
		parts = c.Assigned()
	}
	c.send(now, reqOffsets, model.DestGroupCoordinator, -1, &model.ConsumerOffsetFetchRequest{CorrelationID: c.corr(), GroupID: c.cfg.GroupID, Partitions: parts,
		RequireStable: c.cfg.RequireStable, Coord: tag})
	c.inflight[len(c.inflight)-1].seq = c.grp.assignSeq
}

func (c *Consumer) pending(k reqKind) bool {
	for _, r := range c.inflight {
		if r.kind == k {
			return true
		}
	}
	return false
}

// expire closes the connections whose oldest request is older than
// request.timeout.ms (NetworkClient.handleTimedOutRequests) and fails
// what was in flight on them.
func (c *Consumer) expire(now sim.Time) {
	for i := 0; i < len(c.inflight); i++ {
		r := c.inflight[i]
		if now < r.deadline {
			continue
		}
		c.out = append(c.out, model.Out{Kind: model.OutClose, Dest: r.dest})
		c.failDest(now, r.dest)
		i = -1
	}
}

// resetPositions sends ListOffsets for the partitions without a position
// (OffsetFetcher.resetPositionsIfNeeded); with auto.offset.reset=none
// they fail instead.
func (c *Consumer) resetPositions(now sim.Time) {
	for i := range c.parts {
		ps := &c.parts[i]
		if ps.state != stReset || ps.busy || now < ps.nextFetch {
			continue
		}
		if c.cfg.Reset == ResetNone {
			ps.state = stFailed
			c.observe(model.Obs{Kind: model.ObsConsumerReset, At: now, Partition: ps.part, N: -1, Text: "no position, auto.offset.reset=none",
				Result: model.AppendResult{FirstOffset: ps.position, LastOffset: -1}})
			continue
		}
		leader := c.leader(ps.part)
		if leader < 0 {
			c.needMeta = true
			continue
		}
		ts := model.LatestTimestamp
		if c.cfg.Reset == ResetEarliest {
			ts = model.EarliestTimestamp
		}
		c.send(now, reqList, leader, i, &model.ListOffsetsRequest{CorrelationID: c.corr(), Partition: ps.part, Timestamp: ts,
			CurrentLeaderEpoch: c.epoch(ps.part), ReadCommitted: c.cfg.ReadCommitted})
	}
}

func (c *Consumer) leader(part int32) int32 {
	if int(part) < len(c.leaders) {
		return c.leaders[part]
	}
	return -1
}

func (c *Consumer) epoch(part int32) int32 {
	if int(part) < len(c.epochs) {
		return c.epochs[part]
	}
	return -1
}

// listed applies a ListOffsets answer.
func (c *Consumer) listed(now sim.Time, i int, m *model.ListOffsetsResponse) {
	ps := &c.parts[i]
	if ps.state != stReset {
		return
	}
	if m.Err != model.ErrNone {
		c.leaderError(now, i, m.Err)
		return
	}
	c.setPosition(now, i, m.Offset, c.cfg.Reset.String())
}

// leaderError handles a partition error of a fetch or ListOffsets
// (FetchCollector.handleInitializeErrors): NOT_LEADER_OR_FOLLOWER and
// FENCED_LEADER_EPOCH ask for new metadata; the partition is retried
// after retry.backoff.ms.
func (c *Consumer) leaderError(now sim.Time, i int, e model.ErrCode) {
	if e == model.ErrNotLeaderOrFollower || e == model.ErrFencedLeaderEpoch {
		c.needMeta = true
	}
	c.parts[i].nextFetch = now.Add(c.cfg.RetryBackoff)
}

// sendFetches fetches every partition with a position, a leader, no
// request in flight and nothing buffered (AbstractFetch
// .fetchablePartitions).
func (c *Consumer) sendFetches(now sim.Time) {
	for i := range c.parts {
		ps := &c.parts[i]
		if ps.state != stFetching || ps.busy || ps.buf.pending() || now < ps.nextFetch {
			continue
		}
		leader := c.leader(ps.part)
		if leader < 0 {
			c.needMeta = true
			continue
		}
		c.send(now, reqFetch, leader, i, &model.ConsumerFetchRequest{CorrelationID: c.corr(), Partition: ps.part, FetchOffset: ps.position,
			CurrentLeaderEpoch: c.epoch(ps.part), ReadCommitted: c.cfg.ReadCommitted, LeaderHints: c.readsLeaderHints()})
	}
}

// fetched handles a fetch response (FetchCollector.initialize).
func (c *Consumer) fetched(now sim.Time, i int, m *model.ConsumerFetchResponse) {
	ps := &c.parts[i]
	if ps.state != stFetching || m.FetchOffset != ps.position {
		return // stale: the position moved meanwhile
	}
	switch m.Err {
	case model.ErrNone:
	case model.ErrOffsetOutOfRange:
		old := ps.position
		if c.cfg.Reset == ResetNone {
			ps.state = stFailed
			c.observe(model.Obs{Kind: model.ObsConsumerReset, At: now, Partition: ps.part, N: -1, Text: "out of range, auto.offset.reset=none",
				Result: model.AppendResult{FirstOffset: old, LastOffset: -1}})
			return
		}
		// requestOffsetResetIfPartitionAssigned: the position goes
		// until ListOffsets gives the new one.
		ps.state = stReset
		ps.buf.reset()
		c.observe(model.Obs{Kind: model.ObsConsumerReset, At: now, Partition: ps.part, N: -1, Text: "out of range",
			Result: model.AppendResult{FirstOffset: old, LastOffset: -1}})
		return
	default:
		c.applyLeaderHint(m) // leaderhint.go
		c.leaderError(now, i, m.Err)
		return
	}
	if ps.hw != m.HighWatermark || ps.lso != m.LastStableOffset {
		c.lastChange = now
	}
	ps.hw, ps.lso = m.HighWatermark, m.LastStableOffset
	c.observe(model.Obs{Kind: model.ObsConsumerFetch, At: now, Partition: ps.part, N: m.FetchOffset, Flag: c.cfg.ReadCommitted,
		Result: model.AppendResult{FirstOffset: m.LastStableOffset, LastOffset: m.HighWatermark}})
	if len(m.Entries) == 0 {
		ps.nextFetch = now.Add(c.cfg.FetchMaxWait)
		return
	}
	ps.buf.init(m, c.cfg.ReadCommitted)
}

// collect returns up to max.poll.records records from the buffered
// fetches, partition by partition from where the last poll stopped
// (FetchCollector.collectFetch), and moves the positions past them. It
// returns how many it returned.
func (c *Consumer) collect(now sim.Time) int {
	left := c.cfg.MaxPollRecords
	n := len(c.parts)
	for k := 0; k < n && left > 0; k++ {
		i := (c.rr + k) % n
		ps := &c.parts[i]
		if ps.state != stFetching || !ps.buf.pending() {
			continue
		}
		from := ps.position
		ids0, log0 := len(c.ids), len(c.log)
		var got int
		ps.position, got, c.ids, c.log = ps.buf.take(ps.position, left, c.ids, c.log)
		left -= got
		if got > 0 || ps.position != from {
			c.lastChange = now
			c.observe(model.Obs{Kind: model.ObsPoll, At: now, Partition: ps.part, N: int64(got), Flag: c.cfg.ReadCommitted,
				IDs: c.ids[ids0:len(c.ids):len(c.ids)], Log: c.log[log0:len(c.log):len(c.log)],
				Result: model.AppendResult{FirstOffset: from, LastOffset: ps.position}})
		}
		if left == 0 {
			c.rr = i
			if !ps.buf.pending() {
				c.rr = (i + 1) % n
			}
		}
	}
	return c.cfg.MaxPollRecords - left
}

// Seek sets partition part's position to off (KafkaConsumer.seek): the
// buffered records go, a fetch in flight is answered stale, and the
// reset is logged (a position that goes back is one the consumer
// logged). A partition the consumer does not hold is ignored.
func (c *Consumer) Seek(now sim.Time, part int32, off int64) []model.Out {
	c.begin()
	for i := range c.parts {
		if c.parts[i].part == part && c.running {
			c.setPosition(now, i, off, "seek")
			c.lastChange = now
		}
	}
	c.flushObs()
	return c.out
}

// CommitSync ends the application's processing of the last poll (Config
// .AppCommits): it commits the positions and waits for the answer
// (KafkaConsumer.commitSync), retrying a failed commit at the next poll
// turns; the poll loop returns records again once it is answered.
func (c *Consumer) CommitSync(now sim.Time) []model.Out {
	c.begin()
	if c.running && c.held {
		c.held = false
		c.syncWait = true
		c.commit(now)
	}
	c.flushObs()
	return c.out
}

// CommitOffsets commits the application's offsets (Config.AppOffsets),
// one per assigned partition in order (-1: none for it), with commitSync
// (KafkaConsumer.commitSync with an offset map): the poll loop returns
// no records until the commit is answered, and a failed commit is
// retried at the next poll turns. An offset never goes below one asked
// for before; a StartAt forgets them.
func (c *Consumer) CommitOffsets(now sim.Time, offsets []int64) []model.Out {
	c.begin()
	if c.running && c.cfg.AppOffsets {
		for i, off := range offsets {
			if i < len(c.offsets) {
				c.offsets[i] = max(c.offsets[i], off)
			}
		}
		c.syncWait = true
		c.commit(now)
	}
	c.flushObs()
	return c.out
}

// Held reports whether the application holds the last poll's records
// (Config.AppCommits) and has not committed them yet.
func (c *Consumer) Held() bool { return c.held }

// commit sends the positions to the group coordinator (OffsetCommit of
// SubscriptionState.allConsumed).
func (c *Consumer) commit(now sim.Time) {
	req := &model.OffsetCommitRequest{CorrelationID: c.corr(), GroupID: c.cfg.GroupID}
	if c.grouped() {
		md, ok := c.groupMetadataForCommit()
		if !ok {
			// Not part of an active group: the commit fails at once
			// (CommitFailedException or RebalanceInProgressException).
			c.grp.stats.CommitsFailed++
			c.syncWait = false
			return
		}
		req.GroupMetadata = md
	}
	for i := range c.parts {
		off, ok := c.parts[i].position, c.parts[i].state == stFetching
		if c.cfg.AppOffsets {
			off, ok = c.offsets[i], c.offsets[i] >= 0
		}
		if ok {
			req.Partitions = append(req.Partitions, c.parts[i].part)
			req.Offsets = append(req.Offsets, off)
		}
	}
	if len(req.Partitions) == 0 {
		c.syncWait = false
		return
	}
	tag, ok := c.coordReady(now)
	if !ok {
		return // commitSync waits for the lookup (ensureCoordinatorReady)
	}
	req.Coord = tag
	c.committing = true
	c.send(now, reqCommit, model.DestGroupCoordinator, -1, req)
	c.inflight[len(c.inflight)-1].seq = c.grp.genSeq
}

// committed handles the commit's answer: commitSync returns, or retries
// a failed commit after retry.backoff.ms (at the next poll turn).
func (c *Consumer) committed(now sim.Time, r request, e model.ErrCode) {
	c.committing = false
	if c.coordAnswer(now, "OffsetCommit", e) {
		c.commitAt = now.Add(c.cfg.RetryBackoff) // commitOffsetsSync: timer.sleep(retryBackoffMs)
	}
	if c.grouped() {
		if e != model.ErrNone && c.groupCommitted(r, e) {
			c.syncWait = false
		}
		if c.grp.prepCommit {
			// onJoinPrepare's commit is answered (a failure is only
			// logged): the rejoin goes on.
			c.grp.prepCommit = false
			c.revokeAll()
			c.sendJoin(now)
		}
	}
	if e == model.ErrNone {
		c.syncWait = false
		return
	}
	// commitSync retries at the next poll turn (poll).
}
