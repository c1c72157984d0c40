package coordinator

import (
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// TestHostingGate: a coordinator on broker 1, loaded from t=100, answers
// a request sent to broker 0 NOT_COORDINATOR and one sent to broker 1
// before t=100 COORDINATOR_LOAD_IN_PROGRESS
// (TransactionStateManager.getAndMaybeAddTransactionState); an
// unaddressed request, and every request to a coordinator on no broker,
// goes through.
func TestHostingGate(t *testing.T) {
	var h Hosting
	if e := h.Gate(0, model.CoordTag(1)); e != model.ErrNone {
		t.Fatalf("unhosted: %v", e)
	}
	h.Move(1, 100)
	for _, c := range []struct {
		at    sim.Time
		coord int32
		want  model.ErrCode
	}{
		{50, model.CoordTag(0), model.ErrNotCoordinator},
		{50, model.CoordTag(1), model.ErrCoordinatorLoadInProgress},
		{100, model.CoordTag(1), model.ErrNone},
		{150, model.CoordTag(0), model.ErrNotCoordinator},
		{150, 0, model.ErrNone},
	} {
		if e := h.Gate(c.at, c.coord); e != c.want {
			t.Errorf("at %d to tag %d: %v, want %v", c.at, c.coord, e, c.want)
		}
	}
}

// TestCoordinatorGated: the transaction coordinator answers a gated
// request without touching the transaction, and serves it once addressed
// to its host; an idempotent producer's InitProducerId is never gated.
func TestCoordinatorGated(t *testing.T) {
	c := NewCoordinator(CoordinatorConfig{Leaders: []int32{0}})
	c.Host(1, 0)
	reply := func(m model.Message) model.Message {
		for _, o := range c.Step(0, model.Peer{Node: 7}, m) {
			if o.Kind == model.OutReply {
				return o.Msg
			}
		}
		t.Fatalf("no reply to %s", m.AppendDescription(nil))
		return nil
	}
	r := reply(&model.InitProducerIDRequest{CorrelationID: 1, TransactionalID: "t", ExpectedPID: model.NoProducerID, ExpectedEpoch: model.NoEpoch, Coord: model.CoordTag(0)}).(*model.InitProducerIDResponse)
	if r.Err != model.ErrNotCoordinator {
		t.Fatalf("InitProducerId to the old host: %v", r.Err)
	}
	if _, ok := c.Txn("t"); ok {
		t.Fatalf("a gated InitProducerId created the transactional id")
	}
	r = reply(&model.InitProducerIDRequest{CorrelationID: 2, TransactionalID: "t", ExpectedPID: model.NoProducerID, ExpectedEpoch: model.NoEpoch, Coord: model.CoordTag(1)}).(*model.InitProducerIDResponse)
	if r.Err != model.ErrNone {
		t.Fatalf("InitProducerId to the host: %v", r.Err)
	}
	e := reply(&model.EndTxnRequest{CorrelationID: 3, TransactionalID: "t", PID: r.PID, Epoch: r.Epoch, Commit: true, Coord: model.CoordTag(2)}).(*model.TxnResponse)
	if e.Err != model.ErrNotCoordinator || e.Op != "EndTxn" {
		t.Fatalf("EndTxn to another broker: %+v", e)
	}
	i := reply(&model.InitProducerIDRequest{CorrelationID: 4, ExpectedPID: model.NoProducerID, ExpectedEpoch: model.NoEpoch, Coord: model.CoordTag(2)}).(*model.InitProducerIDResponse)
	if i.Err != model.ErrNone {
		t.Fatalf("an idempotent producer's InitProducerId: %v", i.Err)
	}
}

// TestGroupCoordinatorGated: TxnOffsetCommit to the group coordinator's
// old host is answered NOT_COORDINATOR and commits nothing.
func TestGroupCoordinatorGated(t *testing.T) {
	g := NewGroupCoordinator()
	g.Host(2, 0)
	var got *model.TxnResponse
	for _, o := range g.Step(0, model.Peer{Node: 7}, &model.TxnOffsetCommitRequest{CorrelationID: 1, TransactionalID: "t", GroupID: "app-0", PID: 5, Epoch: 0, Offset: 10, Coord: model.CoordTag(0)}) {
		if o.Kind == model.OutReply {
			got = o.Msg.(*model.TxnResponse)
		}
	}
	if got == nil || got.Err != model.ErrNotCoordinator {
		t.Fatalf("TxnOffsetCommit to the old host: %+v", got)
	}
	if len(g.pending) != 0 {
		t.Fatalf("a gated commit is pending: %v", g.pending)
	}
}

// TestGroupRequestsGated: every consumer group request to the group
// coordinator's old host is answered NOT_COORDINATOR, and to its new host
// while it loads COORDINATOR_LOAD_IN_PROGRESS, but for the Heartbeat,
// answered NONE while loading (GroupCoordinator.handleHeartbeat,
// GroupCoordinatorService.heartbeat); a gated request changes nothing.
// Once loaded, the host serves them.
func TestGroupRequestsGated(t *testing.T) {
	md := model.GroupMetadata{MemberID: "c-1", GenerationID: 1}
	reqs := []func(coord int32) model.Message{
		func(c int32) model.Message {
			return &model.JoinGroupRequest{CorrelationID: 1, GroupID: "g", ClientID: "c", Protocols: []string{model.RangeAssignorName}, Topics: []string{"in"},
				SessionTimeout: 10_000_000_000, RebalanceTimeout: 10_000_000_000, Coord: c}
		},
		func(c int32) model.Message {
			return &model.SyncGroupRequest{CorrelationID: 2, GroupID: "g", GroupMetadata: md, Coord: c}
		},
		func(c int32) model.Message {
			return &model.HeartbeatRequest{CorrelationID: 3, GroupID: "g", GroupMetadata: md, Coord: c}
		},
		func(c int32) model.Message {
			return &model.LeaveGroupRequest{CorrelationID: 4, GroupID: "g", MemberID: "c-1", Coord: c}
		},
		func(c int32) model.Message {
			return &model.OffsetCommitRequest{CorrelationID: 5, GroupID: "r1", Partitions: []int32{0}, Offsets: []int64{7}, Coord: c}
		},
		func(c int32) model.Message {
			return &model.ConsumerOffsetFetchRequest{CorrelationID: 6, GroupID: "r1", Partitions: []int32{0}, Coord: c}
		},
	}
	errOf := func(m model.Message) model.ErrCode {
		switch m := m.(type) {
		case *model.JoinGroupResponse:
			return m.Err
		case *model.SyncGroupResponse:
			return m.Err
		case *model.HeartbeatResponse:
			return m.Err
		case *model.LeaveGroupResponse:
			return m.Err
		case *model.OffsetCommitResponse:
			return m.Err
		case *model.ConsumerOffsetFetchResponse:
			return m.Err
		}
		t.Fatalf("unexpected answer %T", m)
		return 0
	}
	for i, mk := range reqs {
		for _, c := range []struct {
			at    sim.Time
			coord int32
			want  model.ErrCode
		}{
			{50, model.CoordTag(0), model.ErrNotCoordinator},
			{50, model.CoordTag(1), model.ErrCoordinatorLoadInProgress},
			{150, model.CoordTag(0), model.ErrNotCoordinator},
		} {
			g := NewGroupCoordinator()
			g.Host(1, 100)
			m := mk(c.coord)
			want := c.want
			if _, hb := m.(*model.HeartbeatRequest); hb && want == model.ErrCoordinatorLoadInProgress {
				want = model.ErrNone
			}
			outs := g.Step(c.at, model.Peer{Node: 7}, m)
			if len(outs) != 1 || outs[0].Kind != model.OutReply {
				t.Fatalf("request %d at %d to tag %d: outs %v", i, c.at, c.coord, outs)
			}
			if e := errOf(outs[0].Msg); e != want {
				t.Errorf("%s at %d to tag %d: %v, want %v", m.AppendDescription(nil), c.at, c.coord, e, want)
			}
			if len(g.groups) != 0 || len(g.consumed) != 0 {
				t.Errorf("%s gated changed the coordinator: groups %d, offsets %v", m.AppendDescription(nil), len(g.groups), g.consumed)
			}
		}
	}
	// Loaded: the host serves them.
	g := NewGroupCoordinator()
	g.Host(1, 100)
	for _, i := range []int{0, 4, 5} {
		m := reqs[i](model.CoordTag(1))
		for _, o := range g.Step(150, model.Peer{Node: 7}, m) {
			if o.Kind != model.OutReply {
				continue
			}
			if e := errOf(o.Msg); e == model.ErrNotCoordinator || e == model.ErrCoordinatorLoadInProgress {
				t.Errorf("%s to the loaded host: %v", m.AppendDescription(nil), e)
			}
		}
	}
	if len(g.groups) != 1 || g.ConsumerCommitted("r1", 0) != 7 {
		t.Errorf("loaded host: groups %d, committed %d", len(g.groups), g.ConsumerCommitted("r1", 0))
	}
}
