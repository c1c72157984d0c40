package broker

import (
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// TestFindCoordinator: a broker answers with the coordinator's node as
// the world set it (the coordinator's own node by default, a broker, or
// COORDINATOR_NOT_AVAILABLE), per key type; trace lines name the node.
func TestFindCoordinator(t *testing.T) {
	b := NewBroker(BrokerConfig{ID: 0, Leaders: []int32{0}, Rand: sim.NewRand(1, 1)})
	ask := func(k model.CoordKeyType) *model.FindCoordinatorResponse {
		for _, o := range b.Step(0, model.Peer{Node: 5}, &model.FindCoordinatorRequest{CorrelationID: 3, KeyType: k, Key: "k"}) {
			if o.Kind == model.OutReply {
				return o.Msg.(*model.FindCoordinatorResponse)
			}
		}
		t.Fatal("no answer")
		return nil
	}
	for _, c := range []struct {
		set       func()
		k         model.CoordKeyType
		want      string
		err       model.ErrCode
		wantCoord int32
	}{
		{func() {}, model.CoordKeyTransaction, "FindCoordinatorResp#3 txn=k NONE coordinator=c1", model.ErrNone, model.CoordSelf},
		{func() {}, model.CoordKeyGroup, "FindCoordinatorResp#3 group=k NONE coordinator=g1", model.ErrNone, model.CoordSelf},
		{func() { b.SetCoordinator(model.CoordKeyTransaction, 1, true) }, model.CoordKeyTransaction, "FindCoordinatorResp#3 txn=k NONE coordinator=b2", model.ErrNone, 1},
		{func() { b.SetCoordinator(model.CoordKeyGroup, 0, false) }, model.CoordKeyGroup, "FindCoordinatorResp#3 group=k COORDINATOR_NOT_AVAILABLE", model.ErrCoordinatorNotAvailable, model.CoordSelf},
	} {
		c.set()
		r := ask(c.k)
		if got := string(r.AppendDescription(nil)); got != c.want || r.Err != c.err || r.Err == model.ErrNone && r.Node != c.wantCoord {
			t.Errorf("%q (node %d), want %q", got, r.Node, c.want)
		}
	}
	if got := string((&model.FindCoordinatorRequest{CorrelationID: 1, KeyType: model.CoordKeyGroup, Key: "app-0"}).AppendDescription(nil)); got != "FindCoordinator#1 group=app-0" {
		t.Errorf("request line %q", got)
	}
}
