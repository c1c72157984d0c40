package coordinator

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// gworld drives a group coordinator: it delivers requests, keeps the
// replies per client node and runs the coordinator's wake-ups in time
// order.
type gworld struct {
	t       testing.TB
	g       *GroupCoordinator
	now     sim.Time
	wakes   []model.Out
	replies map[int32][]model.Message
	corr    int64
}

func newGWorld(t testing.TB, delay time.Duration) *gworld {
	g := NewGroupCoordinator()
	g.Configure(GroupConfig{InitialRebalanceDelay: delay})
	return &gworld{t: t, g: g, replies: map[int32][]model.Message{}}
}

func (w *gworld) collect(outs []model.Out) {
	for _, o := range outs {
		switch o.Kind {
		case model.OutReply:
			w.replies[o.Peer.Node] = append(w.replies[o.Peer.Node], o.Msg)
		case model.OutWake:
			w.wakes = append(w.wakes, o)
		}
	}
}

func (w *gworld) send(node int32, m model.Message) {
	w.t.Helper()
	w.collect(w.g.Step(w.now, model.Peer{Node: node}, m))
}

// advance runs the wake-ups due until now+d, then sets the clock there.
func (w *gworld) advance(d time.Duration) {
	to := w.now.Add(d)
	for {
		i := -1
		for j, o := range w.wakes {
			if o.At <= to && (i < 0 || o.At < w.wakes[i].At) {
				i = j
			}
		}
		if i < 0 {
			break
		}
		o := w.wakes[i]
		w.wakes = slices.Delete(w.wakes, i, i+1)
		w.now = max(w.now, o.At)
		w.collect(w.g.Wake(w.now, o.Timer))
	}
	w.now = to
}

// take returns node's oldest unread reply, failing when there is none.
func take[T model.Message](w *gworld, node int32) T {
	w.t.Helper()
	rs := w.replies[node]
	if len(rs) == 0 {
		w.t.Fatalf("node %d: no reply", node)
	}
	w.replies[node] = rs[1:]
	r, ok := rs[0].(T)
	if !ok {
		w.t.Fatalf("node %d: reply %s", node, rs[0].AppendDescription(nil))
	}
	return r
}

func (w *gworld) none(node int32) {
	w.t.Helper()
	if rs := w.replies[node]; len(rs) > 0 {
		w.t.Fatalf("node %d: unexpected reply %s", node, rs[0].AppendDescription(nil))
	}
}

// member is a test consumer: its node, member id, instance id and
// generation.
type member struct {
	node     int32
	id, inst string
	gen      int32
	parts    []int32
}

const (
	tgroup   = "app-0"
	tsession = 10 * time.Second
	tpoll    = 30 * time.Second
)

func (w *gworld) joinReq(m *member) *model.JoinGroupRequest {
	w.corr++
	return &model.JoinGroupRequest{CorrelationID: w.corr, GroupID: tgroup, MemberID: m.id, GroupInstanceID: m.inst, ClientID: fmt.Sprint("c", m.node),
		Protocols: []string{model.RangeAssignorName}, Topics: []string{"in"}, SessionTimeout: tsession, RebalanceTimeout: tpoll}
}

// join sends m's JoinGroup; a dynamic member without an id first gets
// one with MEMBER_ID_REQUIRED and joins again with it.
func (w *gworld) join(m *member) {
	w.t.Helper()
	w.send(m.node, w.joinReq(m))
	if m.id == "" && m.inst == "" {
		r := take[*model.JoinGroupResponse](w, m.node)
		if r.Err != model.ErrMemberIDRequired || r.MemberID == "" {
			w.t.Fatalf("first join: %s", r.AppendDescription(nil))
		}
		m.id = r.MemberID
		w.send(m.node, w.joinReq(m))
	}
}

// joined reads m's JoinGroup answer, which must be NONE, and returns it.
func (w *gworld) joined(m *member) *model.JoinGroupResponse {
	w.t.Helper()
	r := take[*model.JoinGroupResponse](w, m.node)
	if r.Err != model.ErrNone {
		w.t.Fatalf("join %d: %s", m.node, r.AppendDescription(nil))
	}
	m.id, m.gen = r.MemberID, r.GenerationID
	return r
}

func (w *gworld) md(m *member) model.GroupMetadata {
	return model.GroupMetadata{MemberID: m.id, GroupInstanceID: m.inst, GenerationID: m.gen}
}

// sync sends m's SyncGroup, the leader's with the range assignment of
// partitions over the members of its JoinGroup answer.
func (w *gworld) sync(m *member, leader *model.JoinGroupResponse, partitions int32) {
	w.corr++
	req := &model.SyncGroupRequest{CorrelationID: w.corr, GroupID: tgroup, GroupMetadata: w.md(m), ProtocolName: model.RangeAssignorName}
	if leader != nil {
		req.Assignments = model.RangeAssign(leader.Members, partitions)
	}
	w.send(m.node, req)
}

func (w *gworld) synced(m *member) {
	w.t.Helper()
	r := take[*model.SyncGroupResponse](w, m.node)
	if r.Err != model.ErrNone {
		w.t.Fatalf("sync %d: %s", m.node, r.AppendDescription(nil))
	}
	m.parts = r.Partitions
}

func (w *gworld) heartbeat(m *member) model.ErrCode {
	w.t.Helper()
	w.corr++
	w.send(m.node, &model.HeartbeatRequest{CorrelationID: w.corr, GroupID: tgroup, GroupMetadata: w.md(m)})
	return take[*model.HeartbeatResponse](w, m.node).Err
}

func (w *gworld) txnCommit(m *member, md model.GroupMetadata) model.ErrCode {
	w.t.Helper()
	w.corr++
	w.send(m.node, &model.TxnOffsetCommitRequest{CorrelationID: w.corr, TransactionalID: fmt.Sprint("t", m.node), GroupID: tgroup, PID: model.ProducerID(m.node), Offset: 7, GroupMetadata: md})
	return take[*model.TxnResponse](w, m.node).Err
}

func (w *gworld) commit(m *member, md model.GroupMetadata) model.ErrCode {
	w.t.Helper()
	w.corr++
	w.send(m.node, &model.OffsetCommitRequest{CorrelationID: w.corr, GroupID: tgroup, Partitions: []int32{0}, Offsets: []int64{5}, GroupMetadata: md})
	return take[*model.OffsetCommitResponse](w, m.node).Err
}

// stable brings members into a Stable group over 4 partitions: all join
// (the initial rebalance's delay passes), the leader's JoinGroup lists
// them, non-leaders sync first and wait for the leader's assignment.
func (w *gworld) stable(ms ...*member) {
	w.t.Helper()
	for _, m := range ms {
		w.join(m)
		w.none(m.node)
	}
	w.advance(7 * time.Second)
	var lead *model.JoinGroupResponse
	var leader *member
	for _, m := range ms {
		if r := w.joined(m); r.Leader == m.id {
			lead, leader = r, m
		} else if len(r.Members) != 0 {
			w.t.Fatalf("a follower got the members: %s", r.AppendDescription(nil))
		}
	}
	if lead == nil {
		w.t.Fatal("no leader")
	}
	for _, m := range ms {
		if m != leader {
			w.sync(m, nil, 0)
			w.none(m.node)
		}
	}
	w.sync(leader, lead, 4)
	for _, m := range ms {
		w.synced(m)
	}
	w.state(GroupStable, ms[0].gen)
}

func (w *gworld) state(want GroupState, gen int32) {
	w.t.Helper()
	st, g, _, _, ok := w.g.Group(tgroup)
	if !ok || st != want || g != gen {
		w.t.Fatalf("group %v gen %d, want %v gen %d", st, g, want, gen)
	}
}

func parts(ms ...*member) [][]int32 {
	var out [][]int32
	for _, m := range ms {
		out = append(out, m.parts)
	}
	return out
}

// TestClassicGroup runs consumer-group stories against the group
// coordinator, each checking the answers Kafka's GroupMetadataManager
// and OffsetMetadataManager give.
func TestClassicGroup(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, w *gworld)
	}{
		{"two members join and sync", func(t *testing.T, w *gworld) {
			a, b := &member{node: 1}, &member{node: 2}
			w.join(a)
			w.advance(2 * time.Second) // within the initial delay
			w.join(b)
			w.advance(2 * time.Second) // b extended the delay: still waiting
			w.none(1)
			w.stable(a, b)
			if a.gen != 1 || b.gen != 1 {
				t.Fatalf("generations %d %d", a.gen, b.gen)
			}
			if got := parts(a, b); !reflect.DeepEqual(got, [][]int32{{0, 1}, {2, 3}}) {
				t.Fatalf("assignment %v", got)
			}
			if e := w.heartbeat(a); e != model.ErrNone {
				t.Fatal(e)
			}
			// A follower rejoining with the same metadata gets the current
			// generation without a rebalance.
			w.send(b.node, w.joinReq(b))
			if r := w.joined(b); r.GenerationID != 1 {
				t.Fatal(r.AppendDescription(nil))
			}
			w.state(GroupStable, 1)
		}},
		{"a third member triggers a rebalance", func(t *testing.T, w *gworld) {
			a, b, c := &member{node: 1}, &member{node: 2}, &member{node: 3}
			w.stable(a, b)
			w.join(c)
			w.state(GroupPreparingRebalance, 1)
			if e := w.heartbeat(a); e != model.ErrRebalanceInProgress {
				t.Fatalf("heartbeat during the rebalance: %v", e)
			}
			// Commits of generation 1 are still taken while the group
			// prepares the rebalance.
			if e := w.commit(a, w.md(a)); e != model.ErrNone {
				t.Fatalf("commit while preparing: %v", e)
			}
			w.join(a)
			w.none(3)
			w.join(b) // the last awaited: the join phase completes at once
			ra, rb, rc := w.joined(a), w.joined(b), w.joined(c)
			if ra.GenerationID != 2 || len(ra.Members) != 3 || len(rb.Members) != 0 || rc.Leader != a.id {
				t.Fatalf("%s / %s / %s", ra.AppendDescription(nil), rb.AppendDescription(nil), rc.AppendDescription(nil))
			}
			w.state(GroupCompletingRebalance, 2)
			if e := w.commit(b, w.md(b)); e != model.ErrRebalanceInProgress {
				t.Fatalf("commit while completing: %v", e)
			}
			w.sync(b, nil, 0)
			w.sync(c, nil, 0)
			w.sync(a, ra, 4)
			w.synced(a)
			w.synced(b)
			w.synced(c)
			if got := parts(a, b, c); !reflect.DeepEqual(got, [][]int32{{0, 1}, {2}, {3}}) {
				t.Fatalf("assignment %v", got)
			}
			stale := model.GroupMetadata{MemberID: b.id, GenerationID: 1}
			if e := w.heartbeat(&member{node: 2, id: b.id, gen: 1}); e != model.ErrIllegalGeneration {
				t.Fatalf("stale heartbeat: %v", e)
			}
			if e := w.txnCommit(b, stale); e != model.ErrIllegalGeneration {
				t.Fatalf("stale TxnOffsetCommit: %v", e)
			}
			if e := w.txnCommit(b, w.md(b)); e != model.ErrNone {
				t.Fatalf("current TxnOffsetCommit: %v", e)
			}
		}},
		{"a member's session expires and its partitions move", func(t *testing.T, w *gworld) {
			a, b := &member{node: 1}, &member{node: 2}
			w.stable(a, b)
			// a heartbeats every 3 s; b has stopped.
			for range 3 {
				w.advance(3 * time.Second)
				if e := w.heartbeat(a); e != model.ErrNone {
					t.Fatalf("heartbeat: %v", e)
				}
			}
			w.state(GroupStable, 1)
			w.advance(3 * time.Second) // b's session (10 s) is over
			w.state(GroupPreparingRebalance, 1)
			if e := w.heartbeat(a); e != model.ErrRebalanceInProgress {
				t.Fatalf("heartbeat: %v", e)
			}
			w.join(a)
			r := w.joined(a)
			if r.GenerationID != 2 || len(r.Members) != 1 {
				t.Fatal(r.AppendDescription(nil))
			}
			w.sync(a, r, 4)
			w.synced(a)
			if !reflect.DeepEqual(a.parts, []int32{0, 1, 2, 3}) {
				t.Fatalf("a has %v", a.parts)
			}
			// The expired member, a zombie, is refused.
			if e := w.txnCommit(b, w.md(b)); e != model.ErrUnknownMemberID {
				t.Fatalf("zombie TxnOffsetCommit: %v", e)
			}
			if e := w.heartbeat(b); e != model.ErrUnknownMemberID {
				t.Fatalf("zombie heartbeat: %v", e)
			}
		}},
		{"the rebalance timeout drops a member that does not rejoin", func(t *testing.T, w *gworld) {
			a, b, c := &member{node: 1}, &member{node: 2}, &member{node: 3}
			w.stable(a, b)
			w.join(c)
			w.join(a)
			// b keeps heartbeating but never rejoins (a poll loop stuck
			// past max.poll.interval.ms): the join phase ends at the
			// rebalance timeout without it.
			for range 9 {
				w.advance(3 * time.Second)
				if e := w.heartbeat(b); e != model.ErrRebalanceInProgress {
					t.Fatalf("heartbeat: %v", e)
				}
			}
			w.none(1)
			w.advance(3 * time.Second)
			ra, rc := w.joined(a), w.joined(c)
			if ra.GenerationID != 2 || len(ra.Members) != 2 || rc.GenerationID != 2 {
				t.Fatal(ra.AppendDescription(nil))
			}
			if e := w.heartbeat(b); e != model.ErrUnknownMemberID {
				t.Fatalf("dropped member's heartbeat: %v", e)
			}
		}},
		{"a generation-1 commit after the rebalance", func(t *testing.T, w *gworld) {
			a, b := &member{node: 1}, &member{node: 2}
			w.stable(a, b)
			old := w.md(b)
			w.join(a) // the leader rejoins: rebalance
			w.join(b)
			w.joined(a)
			w.joined(b)
			for _, tc := range []struct {
				name string
				md   model.GroupMetadata
				txn  bool
				want model.ErrCode
			}{
				{"txn stale generation", old, true, model.ErrIllegalGeneration},
				{"txn current generation", w.md(b), true, model.ErrNone},
				{"txn without metadata (sendOffsetsToTransaction(offsets, groupId))", model.GroupMetadata{}, true, model.ErrNone},
				{"txn explicit generation -1", model.GroupMetadata{GenerationID: model.NoGeneration}, true, model.ErrNone},
				{"txn unknown member", model.GroupMetadata{MemberID: "x-9", GenerationID: 2}, true, model.ErrUnknownMemberID},
				{"commit stale generation", old, false, model.ErrIllegalGeneration},
				{"commit during CompletingRebalance", w.md(b), false, model.ErrRebalanceInProgress},
				{"commit without metadata to a group with members", model.GroupMetadata{}, false, model.ErrUnknownMemberID},
			} {
				var got model.ErrCode
				if tc.txn {
					got = w.txnCommit(b, tc.md)
				} else {
					got = w.commit(b, tc.md)
				}
				if got != tc.want {
					t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
				}
			}
			// A group the coordinator does not know.
			w.corr++
			w.send(5, &model.TxnOffsetCommitRequest{CorrelationID: w.corr, GroupID: "other", PID: 5, GroupMetadata: model.GroupMetadata{MemberID: "m", GenerationID: 1}})
			if e := take[*model.TxnResponse](w, 5).Err; e != model.ErrIllegalGeneration {
				t.Errorf("generation for an unknown group: %v", e)
			}
		}},
		{"static membership fences the old member id", func(t *testing.T, w *gworld) {
			a, b := &member{node: 1, inst: "i1"}, &member{node: 2, inst: "i2"}
			w.stable(a, b)
			old := *a
			// a's instance restarts on node 3 with the same group.instance.id.
			a2 := &member{node: 3, inst: "i1"}
			w.join(a2)
			r := w.joined(a2)
			if r.GenerationID != 1 || a2.id == old.id || r.Leader != a2.id || !r.SkipAssignment || len(r.Members) != 2 {
				t.Fatal(r.AppendDescription(nil))
			}
			w.state(GroupStable, 1)
			w.sync(a2, nil, 0)
			w.synced(a2)
			if !reflect.DeepEqual(a2.parts, old.parts) {
				t.Fatalf("new id has %v, old had %v", a2.parts, old.parts)
			}
			if e := w.heartbeat(&old); e != model.ErrFencedInstanceID {
				t.Fatalf("old id heartbeat: %v", e)
			}
			if e := w.txnCommit(&old, w.md(&old)); e != model.ErrFencedInstanceID {
				t.Fatalf("old id TxnOffsetCommit: %v", e)
			}
			if e := w.heartbeat(a2); e != model.ErrNone {
				t.Fatalf("new id heartbeat: %v", e)
			}
			// LeaveGroup: the old id is fenced; the instance id alone
			// removes the static member (an administrative removal).
			w.send(1, &model.LeaveGroupRequest{CorrelationID: 90, GroupID: tgroup, MemberID: old.id, GroupInstanceID: "i1"})
			if r := take[*model.LeaveGroupResponse](w, 1); r.MemberErr != model.ErrFencedInstanceID {
				t.Fatal(r.AppendDescription(nil))
			}
			w.state(GroupStable, 1)
			w.send(9, &model.LeaveGroupRequest{CorrelationID: 91, GroupID: tgroup, GroupInstanceID: "i1"})
			if r := take[*model.LeaveGroupResponse](w, 9); r.Err != model.ErrNone || r.MemberErr != model.ErrNone {
				t.Fatal(r.AppendDescription(nil))
			}
			w.state(GroupPreparingRebalance, 1)
		}},
		{"a static member replaced while its join is awaited is answered FENCED_INSTANCE_ID", func(t *testing.T, w *gworld) {
			a, b := &member{node: 1, inst: "i1"}, &member{node: 2, inst: "i2"}
			w.stable(a, b)
			w.join(b) // b's metadata is the same, but b is not the leader: no rebalance
			w.joined(b)
			w.join(a) // the leader rejoins: rebalance, a awaits
			w.join(&member{node: 3, inst: "i1"})
			if r := take[*model.JoinGroupResponse](w, 1); r.Err != model.ErrFencedInstanceID {
				t.Fatal(r.AppendDescription(nil))
			}
		}},
		{"leave group", func(t *testing.T, w *gworld) {
			a, b := &member{node: 1}, &member{node: 2}
			w.stable(a, b)
			w.corr++
			w.send(b.node, &model.LeaveGroupRequest{CorrelationID: w.corr, GroupID: tgroup, MemberID: b.id})
			if r := take[*model.LeaveGroupResponse](w, b.node); r.Err != model.ErrNone || r.MemberErr != model.ErrNone {
				t.Fatal(r.AppendDescription(nil))
			}
			w.state(GroupPreparingRebalance, 1)
			w.send(b.node, &model.LeaveGroupRequest{CorrelationID: w.corr, GroupID: tgroup, MemberID: b.id})
			if r := take[*model.LeaveGroupResponse](w, b.node); r.MemberErr != model.ErrUnknownMemberID {
				t.Fatal(r.AppendDescription(nil))
			}
			w.join(a)
			r := w.joined(a)
			w.sync(a, r, 4)
			w.synced(a)
			if r.GenerationID != 2 || !reflect.DeepEqual(a.parts, []int32{0, 1, 2, 3}) {
				t.Fatalf("%s, a has %v", r.AppendDescription(nil), a.parts)
			}
			// The last member leaves: the group is Empty, and a commit
			// without metadata is taken again.
			w.send(a.node, &model.LeaveGroupRequest{CorrelationID: w.corr, GroupID: tgroup, MemberID: a.id})
			take[*model.LeaveGroupResponse](w, a.node)
			w.advance(0)
			w.state(GroupEmpty, 3)
			if e := w.commit(a, model.GroupMetadata{}); e != model.ErrNone {
				t.Fatalf("simple commit to the empty group: %v", e)
			}
		}},
		{"a member that never syncs is removed", func(t *testing.T, w *gworld) {
			a, b := &member{node: 1}, &member{node: 2}
			w.join(a)
			w.join(b)
			w.advance(7 * time.Second)
			ra := w.joined(a)
			w.joined(b)
			w.sync(a, ra, 4)
			w.synced(a)
			w.state(GroupStable, 1)
			// b heartbeats but never sends SyncGroup: at the rebalance
			// timeout after the join phase it is removed.
			for range 10 {
				w.advance(3 * time.Second)
				w.heartbeat(a)
				w.heartbeat(b)
			}
			w.state(GroupPreparingRebalance, 1)
			if e := w.heartbeat(b); e != model.ErrUnknownMemberID {
				t.Fatalf("b: %v", e)
			}
		}},
		{"failover: membership of the stored generation survives, the rebalance does not", func(t *testing.T, w *gworld) {
			a, b := &member{node: 1}, &member{node: 2}
			w.stable(a, b)
			w.join(a) // a rebalance starts; a awaits its JoinGroup
			w.g.Crash()
			w.replies = map[int32][]model.Message{}
			w.wakes = nil
			w.collect(w.g.Restart(w.now, false))
			w.state(GroupStable, 1)
			if e := w.heartbeat(b); e != model.ErrNone {
				t.Fatalf("heartbeat after failover: %v", e)
			}
			if e := w.txnCommit(a, w.md(a)); e != model.ErrNone {
				t.Fatalf("commit after failover: %v", e)
			}
			// The loaded members' sessions run: a, silent, expires.
			for range 4 {
				w.advance(3 * time.Second)
				w.heartbeat(b)
			}
			w.state(GroupPreparingRebalance, 1)
		}},
		{"a session timeout out of bounds", func(t *testing.T, w *gworld) {
			for _, d := range []time.Duration{time.Second, time.Hour} {
				r := w.joinReq(&member{node: 1})
				r.SessionTimeout = d
				w.send(1, r)
				if got := take[*model.JoinGroupResponse](w, 1); got.Err != model.ErrInvalidSessionTimeout {
					t.Fatalf("session %v: %s", d, got.AppendDescription(nil))
				}
			}
			if _, _, _, _, ok := w.g.Group(tgroup); ok {
				t.Fatal("a refused join made a group")
			}
		}},
		{"reset forgets the groups", func(t *testing.T, w *gworld) {
			a := &member{node: 1}
			w.stable(a)
			w.g.Reset()
			if _, _, _, _, ok := w.g.Group(tgroup); ok {
				t.Fatal("group after Reset")
			}
			if e := w.heartbeat(a); e != model.ErrUnknownMemberID {
				t.Fatal(e)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newGWorld(t, 3*time.Second)) })
	}
}

// TestClassicGroupDeterministic: the same requests give the same answers
// and wake-ups, byte for byte, whatever the map orders.
func TestClassicGroupDeterministic(t *testing.T) {
	run := func() string {
		w := newGWorld(t, 0)
		ms := []*member{{node: 1}, {node: 2}, {node: 3}, {node: 4, inst: "s"}}
		for _, m := range ms {
			w.join(m)
		}
		var b []byte
		w.advance(time.Second)
		for _, n := range []int32{1, 2, 3, 4} {
			for _, r := range w.replies[n] {
				b = append(r.AppendDescription(b), '\n')
			}
		}
		for _, o := range w.wakes {
			b = fmt.Appendf(b, "wake %d\n", o.At)
		}
		return string(b)
	}
	first := run()
	for range 20 {
		if got := run(); got != first {
			t.Fatalf("run differs:\n%s\nvs\n%s", got, first)
		}
	}
}

// BenchmarkGroupHeartbeat: one member's heartbeat to a Stable group of
// three, the request a group sees most (every heartbeat.interval.ms per
// member).
func BenchmarkGroupHeartbeat(b *testing.B) {
	w := newGWorld(b, 0)
	ms := []*member{{node: 1}, {node: 2}, {node: 3}}
	w.stable(ms...)
	g := w.g
	g.Reclaim()
	req := &model.HeartbeatRequest{CorrelationID: 1, GroupID: tgroup, GroupMetadata: w.md(ms[1])}
	from := model.Peer{Node: 2}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		outs := g.Step(w.now.Add(time.Duration(i)), from, req)
		if r := outs[0].Msg.(*model.HeartbeatResponse); r.Err != model.ErrNone {
			b.Fatal(r.Err)
		}
	}
}

// TestClassicGroupRandom drives a group with random clients (joins,
// syncs with the range assignment, heartbeats, commits, leaves, silences,
// static restarts, failovers) and checks after every step what Kafka's
// group keeps true: the generation never goes back; a leader is a member;
// member ids are unique and sorted; a Stable group's assignments are
// disjoint; no timer is due in the past; and the same seed gives the same
// answers.
func TestClassicGroupRandom(t *testing.T) {
	for seed := range uint64(60) {
		a, b := randomGroupRun(t, seed), randomGroupRun(t, seed)
		if a != b {
			t.Fatalf("seed %d: two runs differ", seed)
		}
	}
}

func randomGroupRun(t *testing.T, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	w := newGWorld(t, time.Duration(rng.IntN(3))*time.Second)
	ms := make([]*member, 5)
	for i := range ms {
		ms[i] = &member{node: int32(i + 1)}
		if i >= 3 {
			ms[i].inst = fmt.Sprint("s", i)
		}
	}
	var trace []byte
	lastGen := int32(0)
	leaders := map[int32]*model.JoinGroupResponse{}
	for step := 0; step < 300; step++ {
		m := ms[rng.IntN(len(ms))]
		switch rng.IntN(9) {
		case 0, 1:
			w.send(m.node, w.joinReq(m))
		case 2:
			w.corr++
			req := &model.SyncGroupRequest{CorrelationID: w.corr, GroupID: tgroup, GroupMetadata: w.md(m)}
			if r := leaders[m.node]; r != nil && r.GenerationID == m.gen {
				req.Assignments = model.RangeAssign(r.Members, 6)
			}
			w.send(m.node, req)
		case 3, 4:
			w.corr++
			w.send(m.node, &model.HeartbeatRequest{CorrelationID: w.corr, GroupID: tgroup, GroupMetadata: w.md(m)})
		case 5:
			w.corr++
			w.send(m.node, &model.TxnOffsetCommitRequest{CorrelationID: w.corr, GroupID: tgroup, PID: model.ProducerID(m.node), Offset: int64(step), GroupMetadata: w.md(m)})
		case 6:
			w.corr++
			w.send(m.node, &model.LeaveGroupRequest{CorrelationID: w.corr, GroupID: tgroup, MemberID: m.id, GroupInstanceID: m.inst})
		case 7:
			if m.inst != "" && rng.IntN(2) == 0 {
				m.id = "" // a static instance restarts
			} else {
				w.advance(time.Duration(rng.IntN(12)) * time.Second)
			}
		case 8:
			if rng.IntN(10) == 0 {
				w.g.Crash()
				w.wakes = nil
				w.collect(w.g.Restart(w.now, false))
				// The stored generation may be older than the live one
				// was (a generation is stored once Stable).
				_, lastGen, _, _, _ = w.g.Group(tgroup)
			} else {
				w.advance(time.Duration(rng.IntN(4)) * time.Second)
			}
		}
		// Read the answers as the clients would.
		for _, c := range ms {
			for _, r := range w.replies[c.node] {
				trace = append(r.AppendDescription(trace), '\n')
				switch r := r.(type) {
				case *model.JoinGroupResponse:
					if r.Err == model.ErrNone || r.Err == model.ErrMemberIDRequired {
						c.id = r.MemberID
					}
					if r.Err == model.ErrNone {
						c.gen = r.GenerationID
						leaders[c.node] = r
					}
				case *model.SyncGroupResponse:
					c.parts = r.Partitions
				}
			}
			w.replies[c.node] = nil
		}
		st, gen, leader, members, ok := w.g.Group(tgroup)
		if !ok {
			continue
		}
		if gen < lastGen {
			t.Fatalf("seed %d step %d: generation %d after %d", seed, step, gen, lastGen)
		}
		lastGen = gen
		if (leader == "") != (len(members) == 0) {
			t.Fatalf("seed %d step %d: leader %q with %d members", seed, step, leader, len(members))
		}
		seen := map[int32]bool{}
		for i, a := range members {
			if i > 0 && members[i-1].MemberID >= a.MemberID {
				t.Fatalf("seed %d step %d: members not sorted/unique: %v", seed, step, members)
			}
			if st != GroupStable {
				continue
			}
			for _, p := range a.Partitions {
				if seen[p] {
					t.Fatalf("seed %d step %d: partition %d assigned twice: %v", seed, step, p, members)
				}
				seen[p] = true
			}
		}
		if leader != "" && !slices.ContainsFunc(members, func(a model.GroupAssignment) bool { return a.MemberID == leader }) {
			t.Fatalf("seed %d step %d: leader %s not a member", seed, step, leader)
		}
		c := w.g.groups[tgroup]
		for _, mem := range c.members {
			if mem.hbAt <= w.now && mem.hbAt != never {
				t.Fatalf("seed %d step %d: %s's session timer %v is not after %v", seed, step, mem.id, mem.hbAt, w.now)
			}
		}
		if c.joinAt < w.now || c.syncAt < w.now {
			t.Fatalf("seed %d step %d: group timer in the past", seed, step)
		}
	}
	return string(trace)
}
