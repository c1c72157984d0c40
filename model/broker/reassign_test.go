package broker

import (
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/controller"
)

// newBWorldOn is newBWorld with n brokers and partition 0's replicas reps
// (the first leads): the other brokers host nothing.
func newBWorldOn(t *testing.T, n int, reps []int32) *bWorld {
	w := &bWorld{t: t}
	leaders := []int32{reps[0]}
	for i := 0; i < n; i++ {
		w.brokers = append(w.brokers, NewBroker(BrokerConfig{ID: int32(i), Leaders: leaders, Replicas: [][]int32{reps}}))
		w.stops = append(w.stops, -1)
	}
	w.ctl = controller.NewController(controller.ControllerConfig{}, n, []model.PartitionState{{Partition: 0, Replicas: reps, ISR: reps, Leader: reps[0]}})
	w.outs(int32(n), w.ctl.Start(0))
	for i, b := range w.brokers {
		w.outs(int32(i), b.Start(0))
	}
	return w
}

// TestBrokerReassign: a reassignment from brokers 0,1,2 to 3,1,2 gives
// broker 3 an empty replica that fetches everything from the leader and
// joins the ISR; then broker 0 loses its replica (its log deleted) and
// broker 3 leads with the producer's state: a retry of a written batch
// is a duplicate, the next batch is appended, and broker 0 answers
// NOT_LEADER_OR_FOLLOWER. A publication older than the one applied is
// skipped.
func TestBrokerReassign(t *testing.T) {
	w := newBWorldOn(t, 4, []int32{0, 1, 2})
	if w.brokers[3].ReplicaLog(0) != nil {
		t.Fatal("broker 3 hosts p0 before the reassignment")
	}
	w.runUntil(ms(50))
	for seq := int32(0); seq < 5; seq++ {
		w.produce(0, -1, seq)
	}
	w.runUntil(ms(500))
	w.outs(4, w.ctl.Reassign(w.now, 0, []int32{3, 1, 2}))
	w.runUntil(ms(3000))
	st, _ := w.ctl.Partition(0)
	if !slices.Equal(st.Replicas, []int32{3, 1, 2}) || st.Leader != 3 || w.ctl.Reassigning(0) {
		t.Fatalf("registration %+v, want replicas [3 1 2] led by 3", st)
	}
	if w.brokers[0].ReplicaLog(0) != nil || w.brokers[0].Partition(0) != nil {
		t.Fatal("broker 0 kept its replica")
	}
	lg := w.brokers[3].ReplicaLog(0)
	if lg == nil || lg.LogEndOffset() != 5 || !w.brokers[3].Leads(0) || w.brokers[3].Partition(0).StateDiff(w.now) != "" {
		t.Fatalf("broker 3: log %v leads %v", lg, w.brokers[3].Leads(0))
	}
	n := len(w.replies)
	w.produce(3, -1, 4) // a retry of a written batch
	w.produce(3, -1, 5)
	w.produce(0, -1, 6)
	w.runUntil(ms(4000))
	byCorr := map[int64]model.PartitionResponse{}
	for _, m := range w.replies[n:] {
		r := m.(*model.ProduceResponse)
		byCorr[r.CorrelationID] = r.Partitions[0]
	}
	if r := byCorr[5]; r.Err != model.ErrNone || r.BaseOffset != 4 {
		t.Fatalf("retry of seq 4: %+v, want its original offset 4", r)
	}
	if r := byCorr[6]; r.Err != model.ErrNone || r.BaseOffset != 5 {
		t.Fatalf("seq 5: %+v", r)
	}
	if r := byCorr[7]; r.Err != model.ErrNotLeaderOrFollower {
		t.Fatalf("broker 0 answered %+v", r)
	}
	// A stale publication (broker 1 itself leading, an older partition
	// epoch) changes nothing: its fetcher goes on.
	w.outs(1, w.brokers[1].Step(w.now, model.Peer{Node: 4}, &model.MetadataUpdate{Offset: 1,
		Partitions: []model.PartitionState{{Partition: 0, Replicas: []int32{1, 3, 2}, ISR: []int32{1, 3, 2}, Leader: 1, PartitionEpoch: st.PartitionEpoch - 1}}}))
	if l, e, fetching := w.brokers[1].Following(0); l != 3 || e != st.LeaderEpoch || !fetching {
		t.Fatalf("broker 1 follows %d at epoch %d (fetching %v) after a stale publication", l, e, fetching)
	}
}
