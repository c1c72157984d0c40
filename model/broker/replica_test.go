package broker

import (
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/storage"
	"github.com/idemsim/idemsim/sim"
)

func ms(n int64) sim.Time { return sim.Time(n * int64(time.Millisecond)) }

// leaderFixture is broker 0 leading partition 0 with replicas [0,1,2].
type leaderFixture struct {
	t   *testing.T
	log *storage.ReplicaLog
	ls  *LeaderState
}

func newLeaderFixture(t *testing.T, cfg LeaderConfig, isr ...int32) *leaderFixture {
	log := storage.NewReplicaLog(storage.NewPartition(0, storage.PartitionConfig{}))
	ls := NewLeaderState(cfg, 0, log)
	ls.ApplyMetadata(0, model.PartitionState{Partition: 0, Replicas: []int32{0, 1, 2}, ISR: isr, Leader: 0, LeaderEpoch: 0, PartitionEpoch: 1})
	if !ls.IsLeader() {
		t.Fatal("not leader")
	}
	return &leaderFixture{t: t, log: log, ls: ls}
}

// appendN appends an n-record non-idempotent batch as leader.
func (f *leaderFixture) appendN(now sim.Time, n int) (model.AppendResult, LeaderEffects) {
	f.t.Helper()
	if e := f.ls.CheckAppend(-1); e != model.ErrNone {
		f.t.Fatalf("CheckAppend: %v", e)
	}
	res := mustOK(f.t, f.log.Part.Append(now, testBatch(0, model.NoProducerID, model.NoEpoch, 0, int32(n-1), false, now)))
	f.log.OnLeaderAppend(f.ls.State().LeaderEpoch, res)
	return res, f.ls.OnLeaderAppend(now)
}

func (f *leaderFixture) fetch(now sim.Time, id int32, off int64) (*model.FetchResponse, LeaderEffects) {
	return f.ls.OnFetch(now, model.Peer{Node: id}, &model.FetchRequest{ReplicaID: id, Partition: 0, FetchOffset: off,
		CurrentLeaderEpoch: f.ls.State().LeaderEpoch, LastFetchedEpoch: f.log.Epochs.EpochFor(off - 1)})
}

func TestLeaderHighWatermarkAndAcksAll(t *testing.T) {
	f := newLeaderFixture(t, LeaderConfig{}, 0, 1, 2)
	res, _ := f.appendN(ms(1), 5)
	id, done, _ := f.ls.AwaitCommit(ms(1), res.LastOffset+1, 30*time.Second)
	if done {
		t.Fatal("acks=all done before replication")
	}
	resp, _ := f.fetch(ms(2), 1, 0)
	if resp == nil || len(resp.Batches) != 1 || resp.Batches[0].LeaderEpoch != 0 || resp.HighWatermark != 0 {
		t.Fatalf("fetch response %+v", resp)
	}
	if _, eff := f.fetch(ms(3), 1, 5); eff.HWAdvanced || f.log.HighWatermark() != 0 {
		t.Fatalf("HW moved with one ISR follower behind: %d", f.log.HighWatermark())
	}
	resp, eff := f.fetch(ms(4), 2, 5)
	if resp.HighWatermark != 0 {
		t.Fatalf("response HW %d: must exclude this fetch's effect", resp.HighWatermark)
	}
	if !eff.HWAdvanced || f.log.HighWatermark() != 5 {
		t.Fatalf("HW %d, want 5", f.log.HighWatermark())
	}
	if len(eff.Completed) != 1 || eff.Completed[0] != (ProduceCompletion{ID: id, Err: model.ErrNone}) {
		t.Fatalf("completed %v, want wait %d NONE", eff.Completed, id)
	}
}

func TestLeaderMinISRPrecheck(t *testing.T) {
	f := newLeaderFixture(t, LeaderConfig{MinInsyncReplicas: 2}, 0)
	if e := f.ls.CheckAppend(-1); e != model.ErrNotEnoughReplicas {
		t.Fatalf("acks=all with ISR {0}, min 2: %v", e)
	}
	if e := f.ls.CheckAppend(1); e != model.ErrNone {
		t.Fatalf("acks=1: %v", e)
	}
	// acks=1 data is appended but the HW stays (KAFKA-15583, 3.7+).
	res := mustOK(t, f.log.Part.Append(ms(1), testBatch(0, model.NoProducerID, model.NoEpoch, 0, 0, false, ms(1))))
	f.log.OnLeaderAppend(0, res)
	if eff := f.ls.OnLeaderAppend(ms(1)); eff.HWAdvanced || f.log.HighWatermark() != 0 {
		t.Fatal("HW advanced under min ISR")
	}
	// Effective min ISR is capped by the replica count
	// (Partition.effectiveMinIsr).
	g := newLeaderFixture(t, LeaderConfig{MinInsyncReplicas: 5}, 0, 1, 2)
	if g.ls.EffectiveMinISR() != 3 {
		t.Fatalf("effective min ISR %d", g.ls.EffectiveMinISR())
	}
}

// TestLeaderShrinkISR: follower 2 stops fetching at 0 while data arrives;
// it is dropped at the first check more than lag after its last caught-up
// time (Partition.maybeShrinkIsr), the shrink is pending until the
// controller commits it (Partition's PendingShrink state), and the
// waiting produce completes once it does.
func TestLeaderShrinkISR(t *testing.T) {
	f := newLeaderFixture(t, LeaderConfig{}, 0, 1, 2)
	res, _ := f.appendN(ms(1000), 3)
	id, _, _ := f.ls.AwaitCommit(ms(1000), res.LastOffset+1, 60*time.Second)
	f.fetch(ms(1001), 1, 3)
	for _, at := range []int64{15000, 30000} {
		if eff := f.ls.MaybeShrinkISR(ms(at)); eff.Alter != nil {
			t.Fatalf("shrink at %d: %v", at, eff.Alter.NewISR)
		}
	}
	eff := f.ls.MaybeShrinkISR(ms(45000))
	if eff.Alter == nil || len(eff.Alter.NewISR) != 2 || eff.Alter.NewISR[1] != 1 || eff.Alter.PartitionEpoch != 1 {
		t.Fatalf("shrink at 45000: %+v", eff.Alter)
	}
	// Pending: HW still waits for 2 (maximal ISR), and no second change.
	if f.ls.MaybeShrinkISR(ms(60000)).Alter != nil || len(f.ls.MaximalISR()) != 3 {
		t.Fatal("second change while one is pending")
	}
	if f.log.HighWatermark() != 0 {
		t.Fatal("HW moved during a pending shrink")
	}
	st := f.ls.State()
	st.ISR, st.PartitionEpoch = []int32{0, 1}, 2
	eff = f.ls.OnAlterPartitionResponse(ms(45001), &model.AlterPartitionResponse{Partition: 0, State: st})
	if f.log.HighWatermark() != 3 || len(eff.Completed) != 1 || eff.Completed[0].ID != id || eff.Completed[0].Err != model.ErrNone {
		t.Fatalf("after commit: HW %d, completed %v", f.log.HighWatermark(), eff.Completed)
	}
}

// TestLeaderShrinkBelowMinISRByVersion (KAFKA-15583): an ISR shrink below
// min.insync.replicas after an acks=all append times out with the data in
// the log from 3.7, and completed NOT_ENOUGH_REPLICAS_AFTER_APPEND
// before.
func TestLeaderShrinkBelowMinISRByVersion(t *testing.T) {
	for _, tc := range []struct {
		version int
		want    model.ErrCode
	}{{0, model.ErrRequestTimedOut}, {307, model.ErrRequestTimedOut}, {306, model.ErrNotEnoughReplicasAfterAppend}} {
		f := newLeaderFixture(t, LeaderConfig{MinInsyncReplicas: 2, Version: tc.version}, 0, 1)
		res, _ := f.appendN(ms(0), 2)
		id, done, _ := f.ls.AwaitCommit(ms(0), res.LastOffset+1, 30*time.Second)
		if done {
			t.Fatal("done at once")
		}
		alter := f.ls.MaybeShrinkISR(ms(45000)).Alter
		if alter == nil {
			t.Fatal("no shrink")
		}
		st := f.ls.State()
		st.ISR, st.PartitionEpoch = alter.NewISR, st.PartitionEpoch+1
		got := f.ls.OnAlterPartitionResponse(ms(45001), &model.AlterPartitionResponse{Partition: 0, State: st}).Completed
		if len(got) == 0 {
			// 3.7+: the HW stays; the wait expires.
			if at, ok := f.ls.NextDeadline(); !ok || at != ms(30000) {
				t.Fatalf("deadline %v %v", at, ok)
			}
			got = f.ls.Tick(ms(45001)).Completed
		}
		if len(got) != 1 || got[0] != (ProduceCompletion{ID: id, Err: tc.want}) {
			t.Errorf("version %d: %v, want %v", tc.version, got, tc.want)
		}
		if f.log.LogEndOffset() != 2 {
			t.Errorf("version %d: data left the log", tc.version)
		}
		if e := f.ls.CheckAppend(-1); e != model.ErrNotEnoughReplicas {
			t.Errorf("version %d: next acks=all append: %v", tc.version, e)
		}
	}
}

func TestLeaderExpandISR(t *testing.T) {
	f := newLeaderFixture(t, LeaderConfig{}, 0, 1)
	f.appendN(ms(1), 4)
	f.fetch(ms(2), 1, 4)
	f.fetch(ms(3), 1, 4) // HW now 4
	if f.log.HighWatermark() != 4 {
		t.Fatalf("HW %d", f.log.HighWatermark())
	}
	if _, eff := f.fetch(ms(4), 2, 0); eff.Alter != nil {
		t.Fatal("expanded with a follower below the HW")
	}
	_, eff := f.fetch(ms(5), 2, 4)
	if eff.Alter == nil || len(eff.Alter.NewISR) != 3 || !f.ls.ISRChangePending() || len(f.ls.MaximalISR()) != 3 {
		t.Fatalf("expand: %+v", eff.Alter)
	}
	// INELIGIBLE_REPLICA reverts to the committed ISR.
	f.ls.OnAlterPartitionResponse(ms(6), &model.AlterPartitionResponse{Partition: 0, Err: model.ErrIneligibleReplica})
	if f.ls.ISRChangePending() || len(f.ls.MaximalISR()) != 2 {
		t.Fatal("no revert")
	}
	// A fenced replica is not eligible.
	f.ls.SetFenced([]int32{2})
	if _, eff := f.fetch(ms(7), 2, 4); eff.Alter != nil {
		t.Fatal("expanded with a fenced replica")
	}
}

func TestLeaderFetchChecksAndDivergence(t *testing.T) {
	f := newLeaderFixture(t, LeaderConfig{}, 0, 1, 2)
	f.appendN(ms(1), 10) // epoch 0: 0-9
	// New epoch 1 (a re-election of the same broker).
	st := f.ls.State()
	st.LeaderEpoch, st.PartitionEpoch = 1, 2
	f.ls.ApplyMetadata(ms(2), st)
	f.appendN(ms(3), 5) // epoch 1: 10-14
	for _, tc := range []struct {
		req  model.FetchRequest
		want model.ErrCode
	}{
		{model.FetchRequest{ReplicaID: 1, FetchOffset: 0, CurrentLeaderEpoch: 0, LastFetchedEpoch: model.UndefinedEpoch}, model.ErrFencedLeaderEpoch},
		{model.FetchRequest{ReplicaID: 1, FetchOffset: 0, CurrentLeaderEpoch: 2, LastFetchedEpoch: model.UndefinedEpoch}, model.ErrUnknownLeaderEpoch},
		{model.FetchRequest{ReplicaID: 7, FetchOffset: 0, CurrentLeaderEpoch: 1, LastFetchedEpoch: model.UndefinedEpoch}, model.ErrUnknownLeaderEpoch},
		{model.FetchRequest{ReplicaID: 1, FetchOffset: 99, CurrentLeaderEpoch: 1, LastFetchedEpoch: model.UndefinedEpoch}, model.ErrOffsetOutOfRange},
		{model.FetchRequest{ReplicaID: 1, FetchOffset: 14, CurrentLeaderEpoch: 1, LastFetchedEpoch: 5}, model.ErrOffsetOutOfRange},
	} {
		resp, _ := f.ls.OnFetch(ms(4), model.Peer{}, &tc.req)
		if resp == nil || resp.Err != tc.want {
			t.Errorf("%+v: %+v, want %v", tc.req, resp, tc.want)
		}
	}
	// A follower that wrote 10-17 in epoch 0 (as a deposed leader would)
	// diverges at the end of epoch 0 here: (0, 10).
	resp, _ := f.ls.OnFetch(ms(5), model.Peer{}, &model.FetchRequest{ReplicaID: 1, FetchOffset: 18, CurrentLeaderEpoch: 1, LastFetchedEpoch: 0})
	if resp.Err != model.ErrNone || !resp.Diverging() || resp.DivergingEpoch != 0 || resp.DivergingEndOffset != 10 || len(resp.Batches) != 0 {
		t.Fatalf("divergence: %+v", resp)
	}
	if r, _ := f.ls.Replica(1); r.LogEndOffset != -1 {
		t.Fatalf("a diverging fetch updated the follower state: %+v", r)
	}
	// Not diverging: epoch 0 ending at 10 with fetch offset 10.
	resp, _ = f.ls.OnFetch(ms(6), model.Peer{}, &model.FetchRequest{ReplicaID: 1, FetchOffset: 10, CurrentLeaderEpoch: 1, LastFetchedEpoch: 0})
	if resp.Diverging() || len(resp.Batches) != 1 || resp.Batches[0].LeaderEpoch != 1 {
		t.Fatalf("fetch from 10: %+v", resp)
	}
}

func TestLeaderParkedFetchAndResign(t *testing.T) {
	f := newLeaderFixture(t, LeaderConfig{}, 0, 1, 2)
	peer := model.Peer{Node: 11, Handle: 5}
	resp, _ := f.ls.OnFetch(ms(1), peer, &model.FetchRequest{CorrelationID: 3, ReplicaID: 1, FetchOffset: 0, LastFetchedEpoch: model.UndefinedEpoch, MaxWaitMs: 500})
	if resp != nil {
		t.Fatalf("fetch at the log end answered at once: %+v", resp)
	}
	if at, ok := f.ls.NextDeadline(); !ok || at != ms(501) {
		t.Fatalf("deadline %v", at)
	}
	_, eff := f.appendN(ms(100), 2)
	if len(eff.Fetches) != 1 || eff.Fetches[0].Peer != peer || eff.Fetches[0].Resp.CorrelationID != 3 || len(eff.Fetches[0].Resp.Batches) != 1 {
		t.Fatalf("append should answer the parked fetch: %+v", eff.Fetches)
	}
	// Parked again; expires empty at +500 ms.
	f.ls.OnFetch(ms(200), peer, &model.FetchRequest{CorrelationID: 4, ReplicaID: 1, FetchOffset: 2, LastFetchedEpoch: 0, MaxWaitMs: 500})
	if eff := f.ls.Tick(ms(699)); len(eff.Fetches) != 0 {
		t.Fatal("expired early")
	}
	if eff := f.ls.Tick(ms(700)); len(eff.Fetches) != 1 || len(eff.Fetches[0].Resp.Batches) != 0 {
		t.Fatalf("expiry: %+v", eff.Fetches)
	}
	// Resignation ends the waits with NOT_LEADER_OR_FOLLOWER.
	id, _, _ := f.ls.AwaitCommit(ms(800), 2, 30*time.Second)
	f.ls.OnFetch(ms(801), peer, &model.FetchRequest{CorrelationID: 5, ReplicaID: 1, FetchOffset: 2, LastFetchedEpoch: 0, MaxWaitMs: 500})
	st := f.ls.State()
	st.Leader, st.LeaderEpoch, st.PartitionEpoch, st.ISR = 1, 1, 5, []int32{1, 2}
	eff = f.ls.ApplyMetadata(ms(900), st)
	if f.ls.IsLeader() || len(eff.Completed) != 1 || eff.Completed[0] != (ProduceCompletion{ID: id, Err: model.ErrNotLeaderOrFollower}) ||
		len(eff.Fetches) != 1 || eff.Fetches[0].Resp.Err != model.ErrNotLeaderOrFollower {
		t.Fatalf("resign: %+v", eff)
	}
	if e := f.ls.CheckAppend(1); e != model.ErrNotLeaderOrFollower {
		t.Fatalf("CheckAppend after resign: %v", e)
	}
}

// TestNewLeaderHWWaitsForFollowers (Partition.makeLeader): a new leader's
// HW stays until
// every maximal-ISR follower has fetched from it.
func TestNewLeaderHWWaitsForFollowers(t *testing.T) {
	log := storage.NewReplicaLog(storage.NewPartition(0, storage.PartitionConfig{}))
	for i := int64(0); i < 3; i++ {
		e := model.LogEntry{FirstOffset: i, LastOffset: i, Batch: testBatch(0, model.NoProducerID, model.NoEpoch, 0, 0, false, 0), CoordinatorEpoch: -1}
		if err := log.AppendAsFollower([]model.ReplicaBatch{{Entry: e, LeaderEpoch: 0}}); err != nil {
			t.Fatal(err)
		}
	}
	log.UpdateFollowerHighWatermark(1)
	ls := NewLeaderState(LeaderConfig{}, 1, log)
	ls.ApplyMetadata(ms(10), model.PartitionState{Partition: 0, Replicas: []int32{0, 1, 2}, ISR: []int32{1, 2}, Leader: 1, LeaderEpoch: 1, PartitionEpoch: 3})
	if log.HighWatermark() != 1 || log.LatestEpoch() != 1 {
		t.Fatalf("HW %d epoch %d", log.HighWatermark(), log.LatestEpoch())
	}
	if r, _ := ls.Replica(2); r.LogEndOffset != -1 || r.LastCaughtUpTime != ms(10) {
		t.Fatalf("replica 2 state %+v", r)
	}
	ls.OnFetch(ms(11), model.Peer{}, &model.FetchRequest{ReplicaID: 2, FetchOffset: 3, CurrentLeaderEpoch: 1, LastFetchedEpoch: 0})
	if log.HighWatermark() != 3 {
		t.Fatalf("HW %d after the ISR follower caught up", log.HighWatermark())
	}
}
