package broker

import (
	"slices"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/storage"
	"github.com/idemsim/idemsim/sim"
)

// replicaLogWith builds a replica log from (records, epoch) runs of
// one-record non-idempotent batches.
func replicaLogWith(t *testing.T, runs ...[2]int) *storage.ReplicaLog {
	t.Helper()
	l := storage.NewReplicaLog(storage.NewPartition(0, storage.PartitionConfig{}))
	for _, r := range runs {
		for i := 0; i < r[0]; i++ {
			o := l.LogEndOffset()
			e := model.LogEntry{FirstOffset: o, LastOffset: o, Batch: testBatch(0, model.NoProducerID, model.NoEpoch, 0, 0, false, 0), CoordinatorEpoch: -1}
			if err := l.AppendAsFollower([]model.ReplicaBatch{{Entry: e, LeaderEpoch: int32(r[1])}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return l
}

func onlyFetch(t *testing.T, outs []model.Out) (*model.FetchRequest, sim.Time) {
	t.Helper()
	var req *model.FetchRequest
	var wake sim.Time = -1
	for _, o := range outs {
		switch o.Kind {
		case model.OutSend:
			req = o.Msg.(*model.FetchRequest)
		case model.OutWake:
			wake = o.At
		}
	}
	if req == nil {
		t.Fatalf("no fetch in %+v", outs)
	}
	return req, wake
}

func wakeOf(outs []model.Out) (uint64, sim.Time, bool) {
	for _, o := range outs {
		if o.Kind == model.OutWake {
			return o.Timer, o.At, true
		}
	}
	return 0, 0, false
}

func TestFetcherLoopAndErrors(t *testing.T) {
	log := replicaLogWith(t, [2]int{3, 0})
	f := NewReplicaFetcher(FetcherConfig{}, 2, 0, log)
	st := model.PartitionState{Partition: 0, Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}, Leader: 1, LeaderEpoch: 4, PartitionEpoch: 9}
	outs := f.BecomeFollower(ms(10), st)
	req, timeout := onlyFetch(t, outs)
	if outs[0].Dest != 1 || req.ReplicaID != 2 || req.FetchOffset != 3 || req.CurrentLeaderEpoch != 4 || req.LastFetchedEpoch != 0 || req.MaxWaitMs != 500 {
		t.Fatalf("first fetch %+v to %d", req, outs[0].Dest)
	}
	if timeout != ms(10).Add(DefaultReplicaSocketTimeout) {
		t.Fatalf("request timeout at %v", timeout)
	}
	// Same epoch again: no restart.
	if outs := f.BecomeFollower(ms(11), st); len(outs) != 0 {
		t.Fatalf("restart without an epoch bump: %+v", outs)
	}
	// A stale or foreign response is ignored.
	if outs := f.Step(ms(12), model.Peer{}, &model.FetchResponse{CorrelationID: req.CorrelationID + 7}); len(outs) != 0 {
		t.Fatal("stale response handled")
	}
	// Data: appended, HW taken, next fetch at once.
	e := model.LogEntry{FirstOffset: 3, LastOffset: 4, Batch: testBatch(0, model.NoProducerID, model.NoEpoch, 0, 1, false, 0), CoordinatorEpoch: -1}
	outs = f.Step(ms(13), model.Peer{}, &model.FetchResponse{CorrelationID: req.CorrelationID, HighWatermark: 4, LeaderEpoch: 4,
		DivergingEpoch: model.UndefinedEpoch, DivergingEndOffset: model.UndefinedEpochOffset, Batches: []model.ReplicaBatch{{Entry: e, LeaderEpoch: 4}}})
	req, _ = onlyFetch(t, outs)
	if log.LogEndOffset() != 5 || log.HighWatermark() != 4 || req.FetchOffset != 5 || req.LastFetchedEpoch != 4 {
		t.Fatalf("after data: LEO %d HW %d next %+v", log.LogEndOffset(), log.HighWatermark(), req)
	}
	// NOT_LEADER_OR_FOLLOWER: back off 1000 ms, then fetch again.
	outs = f.Step(ms(20), model.Peer{}, &model.FetchResponse{CorrelationID: req.CorrelationID, Err: model.ErrNotLeaderOrFollower})
	tok, at, ok := wakeOf(outs)
	if !ok || at != ms(1020) || f.State() != FetcherBackoff {
		t.Fatalf("backoff: %+v", outs)
	}
	outs = f.Wake(at, tok)
	onlyFetch(t, outs)
	// No answer: the request timeout counts as an error.
	tok, at, _ = wakeOf(outs)
	if at != ms(1020).Add(DefaultReplicaSocketTimeout) {
		t.Fatalf("timeout at %v", at)
	}
	outs = f.Wake(at, tok)
	if _, bat, ok := wakeOf(outs); !ok || bat != at.Add(time.Second) || f.State() != FetcherBackoff {
		t.Fatalf("timeout: %+v", outs)
	}
	btok, bat, _ := wakeOf(outs)
	req, _ = onlyFetch(t, f.Wake(bat, btok))
	// FENCED_LEADER_EPOCH: wait for metadata; a newer epoch restarts.
	if outs := f.Step(ms(40000), model.Peer{}, &model.FetchResponse{CorrelationID: req.CorrelationID, Err: model.ErrFencedLeaderEpoch}); len(outs) != 0 || f.State() != FetcherFenced {
		t.Fatalf("fenced: %+v", outs)
	}
	st.Leader, st.LeaderEpoch, st.PartitionEpoch = 0, 5, 10
	req, _ = onlyFetch(t, f.BecomeFollower(ms(40001), st))
	if req.CurrentLeaderEpoch != 5 || f.State() != FetcherFetching {
		t.Fatalf("after new metadata %+v", req)
	}
	// Becoming leader stops the loop.
	st.Leader, st.LeaderEpoch = 2, 6
	if outs := f.BecomeFollower(ms(40002), st); len(outs) != 0 || f.State() != FetcherIdle {
		t.Fatal("not stopped")
	}
}

// TestFetcherEmptyCacheTruncatesToHW: without epochs a new follower
// truncates to its high watermark and fetches from there
// (ReplicaManager#initialFetchOffset).
func TestFetcherEmptyCacheTruncatesToHW(t *testing.T) {
	p := storage.NewPartition(0, storage.PartitionConfig{})
	for i := 0; i < 4; i++ {
		mustOK(t, p.Append(0, testBatch(0, model.NoProducerID, model.NoEpoch, 0, 0, false, 0)))
	}
	log := storage.NewReplicaLog(p) // no epochs
	log.UpdateFollowerHighWatermark(2)
	f := NewReplicaFetcher(FetcherConfig{}, 1, 0, log)
	req, _ := onlyFetch(t, f.BecomeFollower(0, model.PartitionState{Leader: 0, LeaderEpoch: 1}))
	if log.LogEndOffset() != 2 || req.FetchOffset != 2 || req.LastFetchedEpoch != model.UndefinedEpoch {
		t.Fatalf("LEO %d fetch %+v", log.LogEndOffset(), req)
	}
}

// TestFetcherTruncatesInTwoRounds: the leader names an epoch the follower
// does not have; the follower truncates to the end of its largest epoch
// below it, asks again with its next fetch, and then agrees
// (AbstractFetcherThread#getOffsetTruncationState).
func TestFetcherTruncatesInTwoRounds(t *testing.T) {
	leaderLog := replicaLogWith(t, [2]int{10, 0}, [2]int{5, 1}, [2]int{3, 3})
	ls := NewLeaderState(LeaderConfig{}, 0, leaderLog)
	st := model.PartitionState{Partition: 0, Replicas: []int32{0, 1}, ISR: []int32{0}, Leader: 0, LeaderEpoch: 3, PartitionEpoch: 5}
	ls.ApplyMetadata(0, st)
	if !slices.Equal(leaderLog.Epochs.Entries(), []storage.EpochEntry{{Epoch: 0, StartOffset: 0}, {Epoch: 1, StartOffset: 10}, {Epoch: 3, StartOffset: 15}}) {
		t.Fatalf("leader epochs %v", leaderLog.Epochs.Entries())
	}
	followerLog := replicaLogWith(t, [2]int{10, 0}, [2]int{10, 2})
	f := NewReplicaFetcher(FetcherConfig{}, 1, 0, followerLog)
	req, _ := onlyFetch(t, f.BecomeFollower(0, st))
	var truncations []string
	for round := 0; round < 4 && followerLog.LogEndOffset() != 18; round++ {
		resp, _ := ls.OnFetch(ms(int64(round)), model.Peer{Node: 1}, req)
		if resp == nil {
			t.Fatalf("round %d: parked", round)
		}
		outs := f.Step(ms(int64(round)), model.Peer{}, resp)
		for _, o := range outs {
			if o.Kind == model.OutNote {
				truncations = append(truncations, o.Note)
			}
		}
		req, _ = onlyFetch(t, outs)
	}
	want := []string{"p0 truncated from offset 20 to 10"}
	if !slices.Equal(truncations, want) {
		t.Fatalf("truncations %q, want %q", truncations, want)
	}
	if followerLog.LogEndOffset() != 18 || !slices.Equal(followerLog.Epochs.Entries(), leaderLog.Epochs.Entries()) {
		t.Fatalf("follower LEO %d epochs %v", followerLog.LogEndOffset(), followerLog.Epochs.Entries())
	}
}

// TestFetcherMismatchedBatchBacksOff: a batch that does not continue the
// log is not appended and the fetcher backs off instead of looping.
func TestFetcherMismatchedBatchBacksOff(t *testing.T) {
	log := replicaLogWith(t, [2]int{5, 0})
	f := NewReplicaFetcher(FetcherConfig{}, 1, 0, log)
	req, _ := onlyFetch(t, f.BecomeFollower(0, model.PartitionState{Leader: 0, LeaderEpoch: 1}))
	e := model.LogEntry{FirstOffset: 3, LastOffset: 7, Batch: testBatch(0, model.NoProducerID, model.NoEpoch, 0, 4, false, 0), CoordinatorEpoch: -1}
	outs := f.Step(ms(1), model.Peer{}, &model.FetchResponse{CorrelationID: req.CorrelationID, DivergingEpoch: model.UndefinedEpoch,
		DivergingEndOffset: model.UndefinedEpochOffset, Batches: []model.ReplicaBatch{{Entry: e, LeaderEpoch: 1}}})
	if _, at, ok := wakeOf(outs); !ok || at != ms(1001) || f.State() != FetcherBackoff || log.LogEndOffset() != 5 {
		t.Fatalf("mismatch: %+v, LEO %d", outs, log.LogEndOffset())
	}
}

// TestFetcherDisconnected: a broken connection fails the fetch in flight;
// the next fetch goes out after replica.fetch.backoff.ms, and a response
// to the failed fetch is ignored.
func TestFetcherDisconnected(t *testing.T) {
	l := replicaLogWith(t)
	f := NewReplicaFetcher(FetcherConfig{}, 1, 0, l)
	req, _ := onlyFetch(t, f.BecomeFollower(0, model.PartitionState{Partition: 0, Replicas: []int32{0, 1}, ISR: []int32{0, 1}, Leader: 0}))
	outs := f.Disconnected(ms(5))
	if f.State() != FetcherBackoff || len(outs) != 1 || outs[0].Kind != model.OutWake || outs[0].At != ms(1005) {
		t.Fatalf("after the break: state %v, outs %v", f.State(), outs)
	}
	if outs := f.Step(ms(6), model.Peer{}, &model.FetchResponse{CorrelationID: req.CorrelationID, Partition: 0, HighWatermark: 0}); len(outs) != 0 {
		t.Fatalf("answer to the failed fetch handled: %v", outs)
	}
	if outs := f.Disconnected(ms(7)); len(outs) != 0 {
		t.Fatalf("a break while backing off: %v", outs)
	}
}
