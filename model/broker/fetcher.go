package broker

import (
	"strconv"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/storage"
	"github.com/idemsim/idemsim/sim"
)

// The follower's fetch loop for one partition. Citations are to
// apache/kafka@1eb7644349cb:
// core/src/main/scala/kafka/server/AbstractFetcherThread.scala (AFT),
// ReplicaFetcherThread.scala (RFT), ReplicaManager.scala (RM).

// Fetcher defaults.
const (
	// DefaultReplicaFetchWaitMax is replica.fetch.wait.max.ms.
	DefaultReplicaFetchWaitMax = 500 * time.Millisecond
	// DefaultReplicaFetchBackoff is replica.fetch.backoff.ms.
	DefaultReplicaFetchBackoff = 1000 * time.Millisecond
	// DefaultReplicaSocketTimeout is replica.socket.timeout.ms, the
	// fetcher's request timeout.
	DefaultReplicaSocketTimeout = 30 * time.Second
)

// FetcherConfig holds a follower's fetch settings. The zero value is
// Kafka's defaults.
type FetcherConfig struct {
	// MaxWait is replica.fetch.wait.max.ms (500), sent as MaxWaitMs.
	MaxWait time.Duration
	// Backoff is replica.fetch.backoff.ms (1000): the pause after a fetch
	// error (AFT#handlePartitionsWithErrors:135).
	Backoff time.Duration
	// RequestTimeout is replica.socket.timeout.ms (30000): a fetch with no
	// answer by then counts as failed and is retried after Backoff.
	RequestTimeout time.Duration
}

func (c FetcherConfig) maxWait() time.Duration {
	if c.MaxWait <= 0 {
		return DefaultReplicaFetchWaitMax
	}
	return c.MaxWait
}

func (c FetcherConfig) backoff() time.Duration {
	if c.Backoff <= 0 {
		return DefaultReplicaFetchBackoff
	}
	return c.Backoff
}

func (c FetcherConfig) timeout() time.Duration {
	if c.RequestTimeout <= 0 {
		return DefaultReplicaSocketTimeout
	}
	return c.RequestTimeout
}

// FetcherState is where a [ReplicaFetcher] is in its loop.
type FetcherState uint8

// Fetcher states.
const (
	// FetcherIdle: not following (no leader, or this broker leads).
	FetcherIdle FetcherState = iota
	// FetcherFetching: a fetch is in flight.
	FetcherFetching
	// FetcherBackoff: waiting replica.fetch.backoff.ms after an error.
	FetcherBackoff
	// FetcherFenced: the leader fenced our epoch; waiting for metadata
	// (AFT#onPartitionFenced:293).
	FetcherFenced
)

// ReplicaFetcher is a follower's fetch loop for one partition (AFT with
// truncation on fetch, KAFKA-10554): one fetch in flight at a time; each
// response is appended, or the log truncated on a diverging epoch
// (AFT#getOffsetTruncationState:583), and the next fetch goes out at once;
// errors back off. It is pure: the broker feeds it metadata, fetch responses
// and its timers, and carries out the returned effects (OutSend of a
// [model.FetchRequest] to the leader's broker index, OutWake for its timers,
// OutNote for truncations). The returned slice is the fetcher's and valid
// until its next call.
type ReplicaFetcher struct {
	cfg       FetcherConfig
	self      int32
	partition int32
	log       *storage.ReplicaLog

	state       FetcherState
	leader      int32
	leaderEpoch int32
	// inflight is the correlation id of the fetch in flight, or 0.
	inflight int64
	corr     int64
	// tok is the token of the pending wake-up (request timeout or end of
	// backoff); a Wake with another token is ignored.
	tok uint64
	out []model.Out
	// msgs carves its fetches, when its broker gave it its pool; nil: a
	// new value each.
	msgs *msgPool
}

// NewReplicaFetcher returns an idle fetcher for broker self's replica log
// of partition.
func NewReplicaFetcher(cfg FetcherConfig, self, partition int32, log *storage.ReplicaLog) *ReplicaFetcher {
	return &ReplicaFetcher{cfg: cfg, self: self, partition: partition, log: log, leader: -1, leaderEpoch: -1}
}

// State returns the fetcher's state.
func (f *ReplicaFetcher) State() FetcherState { return f.state }

// Leader returns the leader followed and its epoch (-1, -1 when idle).
func (f *ReplicaFetcher) Leader() (int32, int32) { return f.leader, f.leaderEpoch }

// BecomeFollower applies the partition's registration (P#makeFollower:839,
// RM#applyLocalFollowersDelta:2986). It restarts the loop only when
// the leader epoch increased: with an empty epoch cache the log is first
// truncated to the high watermark (RM#initialFetchOffset:2581, AFT
// truncateToHighWatermark); the first fetch starts at the log end with the
// latest cached epoch as LastFetchedEpoch. A registration that names
// this broker as leader, or no leader, stops the loop.
func (f *ReplicaFetcher) BecomeFollower(now sim.Time, st model.PartitionState) []model.Out {
	f.out = f.out[:0]
	if st.Leader == f.self || st.Leader < 0 {
		f.Stop()
		f.leaderEpoch = max(f.leaderEpoch, st.LeaderEpoch)
		return f.out
	}
	if st.LeaderEpoch <= f.leaderEpoch && f.state != FetcherIdle {
		return f.out
	}
	f.leader, f.leaderEpoch = st.Leader, st.LeaderEpoch
	if _, ok := f.log.Epochs.Latest(); !ok {
		f.truncate(now, f.log.HighWatermark())
	}
	f.send(now)
	return f.out
}

// Stop ends the loop (this broker becomes leader, or the partition has no
// leader): a response still in flight is ignored.
func (f *ReplicaFetcher) Stop() {
	f.state = FetcherIdle
	f.inflight = 0
	f.tok++
	f.leader = -1
}

// Step handles a [model.FetchResponse]; other messages are ignored, as is a
// response that is not to the fetch in flight.
func (f *ReplicaFetcher) Step(now sim.Time, _ model.Peer, m model.Message) []model.Out {
	f.out = f.out[:0]
	resp, ok := m.(*model.FetchResponse)
	if !ok || f.state != FetcherFetching || resp.CorrelationID != f.inflight || resp.Partition != f.partition {
		return f.out
	}
	f.inflight = 0
	f.tok++ // the request timeout is moot
	switch resp.Err {
	case model.ErrNone:
	case model.ErrFencedLeaderEpoch:
		// Our epoch is still the one we sent (a response to an older
		// fetch was ignored above): wait for metadata.
		f.state = FetcherFenced
		return f.out
	default:
		// NOT_LEADER_OR_FOLLOWER, UNKNOWN_LEADER_EPOCH,
		// OFFSET_OUT_OF_RANGE, ...: retry after the backoff. (The legacy
		// OFFSET_OUT_OF_RANGE reset, AFT#fetchOffsetAndTruncate:637, is
		// not modelled: with log start 0 and truncation by epoch the
		// leader here answers it only to an ill-formed fetch.)
		f.backoff(now)
		return f.out
	}
	if resp.Diverging() {
		// Truncate (AFT#getOffsetTruncationState:583); the next fetch
		// carries the new latest epoch, so a truncation that is not
		// complete is checked again.
		off, _ := f.log.TruncationOffset(resp.DivergingEpoch, resp.DivergingEndOffset)
		f.truncate(now, off)
		f.send(now)
		return f.out
	}
	if len(resp.Batches) > 0 {
		// The answer is to our fetch offset (the correlation id matched),
		// so a batch that does not continue the log means the logs
		// disagree where no epoch told: Kafka's append fails and the
		// partition is retried after the backoff; so here.
		if err := f.log.AppendAsFollower(resp.Batches); err != nil {
			f.out = append(f.out, model.Out{Kind: model.OutNote, Note: "p" + strconv.FormatInt(int64(f.partition), 10) + " replicated batch at " +
				strconv.FormatInt(resp.Batches[0].Entry.FirstOffset, 10) + " does not continue the log at " + strconv.FormatInt(f.log.LogEndOffset(), 10)})
			f.backoff(now)
			return f.out
		}
	}
	f.log.UpdateFollowerHighWatermark(resp.HighWatermark)
	// The leader's log start, as far as this replica's high watermark
	// (ReplicaFetcherThread.processPartitionData,
	// maybeIncrementLogStartOffset with LeaderOffsetIncremented); the
	// broker reports the move.
	f.log.Part.IncrementLogStart(min(resp.LogStartOffset, f.log.HighWatermark()))
	f.send(now)
	return f.out
}

// Wake handles the fetcher's timer: the end of a backoff sends the next
// fetch; a request timeout counts as an error and backs off. A token
// the fetcher no longer waits for is ignored.
func (f *ReplicaFetcher) Wake(now sim.Time, token uint64) []model.Out {
	f.out = f.out[:0]
	if token != f.tok {
		return f.out
	}
	switch f.state {
	case FetcherBackoff:
		f.send(now)
	case FetcherFetching:
		f.inflight = 0
		f.backoff(now)
	}
	return f.out
}

// Disconnected fails the fetch in flight, if any: its connection to the
// leader broke (NetworkClient fails the request; AFT#processFetchRequest
// counts it as a fetch error and the partition backs off
// replica.fetch.backoff.ms, AFT#handlePartitionsWithErrors:135).
func (f *ReplicaFetcher) Disconnected(now sim.Time) []model.Out {
	f.out = f.out[:0]
	if f.state == FetcherFetching {
		f.inflight = 0
		f.backoff(now)
	}
	return f.out
}

// NextFetch returns the fetch the loop would send now (for tests and
// traces); it changes nothing.
func (f *ReplicaFetcher) NextFetch() model.FetchRequest {
	return model.FetchRequest{CorrelationID: f.corr + 1, ReplicaID: f.self, Partition: f.partition,
		FetchOffset: f.log.LogEndOffset(), CurrentLeaderEpoch: f.leaderEpoch,
		LastFetchedEpoch: f.log.LatestEpoch(), MaxWaitMs: int32(f.cfg.maxWait() / time.Millisecond)}
}

func (f *ReplicaFetcher) send(now sim.Time) {
	var m *model.FetchRequest
	if f.msgs != nil {
		m = f.msgs.replFetches.New()
	} else {
		m = new(model.FetchRequest)
	}
	*m = f.NextFetch()
	f.corr = m.CorrelationID
	f.inflight = m.CorrelationID
	f.state = FetcherFetching
	f.tok++
	f.out = append(f.out,
		model.Out{Kind: model.OutSend, Dest: f.leader, Msg: m},
		model.Out{Kind: model.OutWake, At: now.Add(f.cfg.timeout()), Timer: f.tok})
}

func (f *ReplicaFetcher) backoff(now sim.Time) {
	f.state = FetcherBackoff
	f.tok++
	f.out = append(f.out, model.Out{Kind: model.OutWake, At: now.Add(f.cfg.backoff()), Timer: f.tok})
}

func (f *ReplicaFetcher) truncate(now sim.Time, off int64) {
	leo := f.log.LogEndOffset()
	end := f.log.TruncateTo(now, off)
	if end < leo {
		f.out = append(f.out, model.Out{Kind: model.OutNote, Note: "p" + strconv.FormatInt(int64(f.partition), 10) + " truncated from offset " + strconv.FormatInt(leo, 10) + " to " + strconv.FormatInt(end, 10)})
	}
}
