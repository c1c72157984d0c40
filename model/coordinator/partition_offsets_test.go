package coordinator

import (
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestPartitionOffsetsRequireStable: a TxnOffsetCommit with per-partition
// offsets leaves them pending; a require_stable OffsetFetch of one of the
// partitions is answered UNSTABLE_OFFSET_COMMIT until the COMMIT marker
// makes them the group's committed offsets; one without require_stable,
// or of another partition, is answered at once.
func TestPartitionOffsetsRequireStable(t *testing.T) {
	g := NewGroupCoordinator()
	peer := model.Peer{Node: 0}
	g.Step(0, peer, &model.TxnOffsetCommitRequest{CorrelationID: 1, TransactionalID: "t1-0", GroupID: "app-0", PID: 42, Epoch: 0,
		Partitions: []int32{2}, Offsets: []int64{10}})
	fetch := func(part int32, stable bool) *model.ConsumerOffsetFetchResponse {
		outs := g.Step(0, peer, &model.ConsumerOffsetFetchRequest{CorrelationID: 2, GroupID: "app-0", Partitions: []int32{part}, RequireStable: stable})
		for _, o := range outs {
			if r, ok := o.Msg.(*model.ConsumerOffsetFetchResponse); ok {
				return r
			}
		}
		t.Fatal("no OffsetFetch answer")
		return nil
	}
	if r := fetch(2, true); r.Err != model.ErrUnstableOffsetCommit {
		t.Fatalf("require_stable fetch of a pending partition: %v, want UNSTABLE_OFFSET_COMMIT", r.Err)
	}
	if r := fetch(2, false); r.Err != model.ErrNone || r.Offsets[0] != -1 {
		t.Fatalf("fetch without require_stable: %v %v, want NONE [-1]", r.Err, r.Offsets)
	}
	if r := fetch(3, true); r.Err != model.ErrNone {
		t.Fatalf("require_stable fetch of another partition: %v, want NONE", r.Err)
	}
	g.Step(0, peer, &model.WriteTxnMarkersRequest{CorrelationID: 3, TransactionalID: "t1-0",
		Markers: []model.TxnMarker{{TransactionalID: "t1-0", Partition: model.OffsetsPartition, PID: 42, Epoch: 1, Marker: model.MarkerCommit}}})
	if r := fetch(2, true); r.Err != model.ErrNone || r.Offsets[0] != 10 {
		t.Fatalf("after the COMMIT marker: %v %v, want NONE [10]", r.Err, r.Offsets)
	}
	if got := g.ConsumerCommitted("app-0", 2); got != 10 {
		t.Fatalf("committed %d, want 10", got)
	}
}
