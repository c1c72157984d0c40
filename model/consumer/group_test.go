package consumer

import (
	"container/heap"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/broker"
	"github.com/idemsim/idemsim/model/coordinator"
	"github.com/idemsim/idemsim/sim"
)

// gWorld is a miniature world for group members: one broker leading
// every partition of the input topic, a group coordinator with its
// timers, and several consumers of one group, node i being consumer i;
// every message takes 1 ms.
type gWorld struct {
	t   testing.TB
	now sim.Time
	q   evQueue
	seq int
	b   *broker.Broker
	g   *coordinator.GroupCoordinator
	cs  []*Consumer
	// frozen consumers run no timer and get no answer (a process that
	// stopped); drop, if set, loses a message on its way (req: from the
	// consumer, else to it).
	frozen []bool
	drop   func(i int, m model.Message, req bool) bool
	// got is what each consumer's polls returned: record numbers by
	// partition; notes are their trace notes.
	got   []map[int32][]int64
	notes []string
}

const (
	gParts   = 4
	gGroup   = "app"
	gSession = 10 * time.Second
	gHB      = 3 * time.Second
	gMaxPoll = 30 * time.Second
)

func newGWorld(t testing.TB) *gWorld {
	leaders := make([]int32, gParts)
	w := &gWorld{t: t, b: broker.NewBroker(broker.BrokerConfig{ID: 0, Leaders: leaders}), g: coordinator.NewGroupCoordinator()}
	w.g.Configure(coordinator.GroupConfig{InitialRebalanceDelay: 500 * time.Millisecond})
	return w
}

// cfg is a group member's configuration for consumer i.
func gCfg(i int) Config {
	return Config{GroupID: gGroup, Protocol: ProtocolClassic, ClientID: fmt.Sprint("c", i), Leaders: make([]int32, gParts), Brokers: 1,
		Commits: true, AutoCommit: true, AutoCommitInterval: time.Second, Reset: ResetEarliest, PollInterval: 10 * time.Millisecond,
		FetchMaxWait: 50 * time.Millisecond, SessionTimeout: gSession, HeartbeatInterval: gHB, MaxPollInterval: gMaxPoll}
}

// add starts a consumer with cfg now and returns its index.
func (w *gWorld) add(cfg Config) int {
	i := len(w.cs)
	w.cs = append(w.cs, New(cfg))
	w.frozen = append(w.frozen, false)
	w.got = append(w.got, map[int32][]int64{})
	w.outs(i, w.cs[i].Start(w.now))
	return i
}

func (w *gWorld) at(t sim.Time, f func()) {
	w.seq++
	heap.Push(&w.q, ev{at: t, seq: w.seq, run: f})
}

func (w *gWorld) run(to time.Duration) {
	end := sim.Time(to)
	for len(w.q) > 0 && w.q[0].at <= end {
		e := heap.Pop(&w.q).(ev)
		w.now = e.at
		e.run()
	}
	w.now = end
}

// deliver hands m to consumer i 1 ms from now.
func (w *gWorld) deliver(i int, m model.Message) {
	if w.drop != nil && w.drop(i, m, false) {
		return
	}
	w.at(w.now.Add(time.Millisecond), func() {
		if !w.frozen[i] {
			w.outs(i, w.cs[i].Step(w.now, model.Peer{}, m))
		}
	})
}

// serverOuts carries out the broker's or the coordinator's effects.
func (w *gWorld) serverOuts(outs []model.Out) {
	for _, o := range outs {
		switch o.Kind {
		case model.OutReply:
			w.deliver(int(o.Peer.Node), o.Msg)
		case model.OutWake:
			tok := o.Timer
			w.at(o.At, func() { w.serverOuts(w.g.Wake(w.now, tok)) })
		}
	}
}

// outs carries out consumer i's effects.
func (w *gWorld) outs(i int, outs []model.Out) {
	for _, o := range outs {
		switch o.Kind {
		case model.OutSend:
			m, dest := o.Msg, o.Dest
			if w.drop != nil && w.drop(i, m, true) {
				continue
			}
			w.at(w.now.Add(time.Millisecond), func() {
				if dest == model.DestGroupCoordinator {
					w.serverOuts(w.g.Step(w.now, model.Peer{Node: int32(i)}, m))
					return
				}
				w.serverOuts(w.b.Step(w.now, model.Peer{Node: int32(i)}, m))
			})
		case model.OutWake:
			tok := o.Timer
			w.at(o.At, func() {
				if !w.frozen[i] {
					w.outs(i, w.cs[i].Wake(w.now, tok))
				}
			})
		case model.OutObserve:
			if o.Obs.Kind == model.ObsPoll {
				for _, id := range o.Obs.IDs {
					w.got[i][o.Obs.Partition] = append(w.got[i][o.Obs.Partition], id.N)
				}
			}
		case model.OutClose:
			w.deliver(i, &model.Disconnected{Dest: o.Dest})
		case model.OutNote:
			w.notes = append(w.notes, o.Note)
		}
	}
}

// produce appends n records to each partition, numbered p*1000+next.
func (w *gWorld) produce(n int) {
	for p := int32(0); p < gParts; p++ {
		part := w.b.Partition(p)
		first := int64(p)*1000 + part.HighWatermark()
		if r := part.Append(w.now, batch(-1, false, 0, first, n)); r.Err != model.ErrNone {
			w.t.Fatalf("append: %v %s", r.Err, r.Reason)
		}
	}
}

// returned counts, over all consumers, how many times each record was
// returned.
func (w *gWorld) returned() map[int64]int {
	n := map[int64]int{}
	for _, g := range w.got {
		for _, ids := range g {
			for _, id := range ids {
				n[id]++
			}
		}
	}
	return n
}

// checkSplit checks that the live consumers live are Stable in
// generation gen, hold disjoint assignments covering every partition,
// of the sizes want (sorted), as the coordinator has them.
func (w *gWorld) checkSplit(gen int32, want []int, live ...int) {
	w.t.Helper()
	var sizes []int
	var all []int32
	for _, i := range live {
		c := w.cs[i]
		g, id, stable := c.Generation()
		if !stable || g != gen || id == "" {
			w.t.Fatalf("t=%v consumer %d: generation %d member %q stable %v, want Stable in %d", w.now, i, g, id, stable, gen)
		}
		if md := c.GroupMetadata(); md.GenerationID != gen || md.MemberID != id {
			w.t.Errorf("consumer %d: GroupMetadata %+v, want member %s generation %d", i, md, id, gen)
		}
		sizes = append(sizes, len(c.Assigned()))
		all = append(all, c.Assigned()...)
	}
	slices.Sort(sizes)
	slices.Sort(all)
	if !slices.Equal(sizes, want) || !slices.Equal(all, []int32{0, 1, 2, 3}) {
		w.t.Fatalf("t=%v: assignment sizes %v over %v, want %v over [0 1 2 3]", w.now, sizes, all, want)
	}
	st, g, _, members, _ := w.g.Group(gGroup)
	if st != coordinator.GroupStable || g != gen || len(members) != len(live) {
		w.t.Fatalf("coordinator: state %v generation %d members %d, want Stable %d %d", st, g, len(members), gen, len(live))
	}
}

// TestGroupTwoMembersSplit: two consumers join (MEMBER_ID_REQUIRED, then
// JoinGroup with the given id), the leader's range assignment gives each
// two partitions, each fetches its own from the committed offsets, and
// every record is returned once.
func TestGroupTwoMembersSplit(t *testing.T) {
	w := newGWorld(t)
	w.produce(5)
	a, b := w.add(gCfg(0)), w.add(gCfg(1))
	w.run(5 * time.Second)
	w.checkSplit(1, []int{2, 2}, a, b)
	for _, i := range []int{a, b} {
		if s := w.cs[i].Stats(); s.Joins != 2 || s.Syncs != 1 || s.Heartbeats == 0 {
			t.Errorf("consumer %d: %+v, want 2 joins (MEMBER_ID_REQUIRED, then with the id), 1 sync, heartbeats", i, s)
		}
	}
	n := w.returned()
	if len(n) != 20 {
		t.Errorf("%d records returned, want 20", len(n))
	}
	for id, k := range n {
		if k != 1 {
			t.Errorf("record %d returned %d times", id, k)
		}
	}
	for p := int32(0); p < gParts; p++ {
		if got := w.g.ConsumerCommitted(gGroup, p); got != 5 {
			t.Errorf("partition %d: committed %d, want 5 (auto-commit with the generation)", p, got)
		}
	}
}

// TestGroupThirdMemberRebalance: a third consumer joins; the others learn
// of the rebalance from their heartbeats (REBALANCE_IN_PROGRESS), commit
// (auto-commit in onJoinPrepare), drop their partitions and rejoin; the
// new generation splits 2/1/1 and no record is returned twice.
func TestGroupThirdMemberRebalance(t *testing.T) {
	w := newGWorld(t)
	w.produce(5)
	a, b := w.add(gCfg(0)), w.add(gCfg(1))
	w.run(5 * time.Second)
	w.checkSplit(1, []int{2, 2}, a, b)
	c := w.add(gCfg(2))
	w.run(15 * time.Second)
	w.checkSplit(2, []int{1, 1, 2}, a, b, c)
	w.produce(3)
	w.run(20 * time.Second)
	n := w.returned()
	if len(n) != 32 {
		t.Errorf("%d records returned, want 32", len(n))
	}
	for id, k := range n {
		if k != 1 {
			t.Errorf("record %d returned %d times", id, k)
		}
	}
}

// TestGroupSessionExpiry: a consumer stops (no heartbeat, no poll); its
// session ends at the coordinator, which rebalances; the other takes its
// partitions from their committed offsets.
func TestGroupSessionExpiry(t *testing.T) {
	w := newGWorld(t)
	w.produce(5)
	a, b := w.add(gCfg(0)), w.add(gCfg(1))
	w.run(5 * time.Second)
	w.checkSplit(1, []int{2, 2}, a, b)
	w.frozen[b] = true
	w.run(5*time.Second + gSession - time.Second)
	if _, _, _, members, _ := w.g.Group(gGroup); len(members) != 2 {
		t.Fatalf("members %d before the session ends, want 2", len(members))
	}
	w.run(30 * time.Second)
	w.checkSplit(2, []int{4}, a)
	w.produce(2)
	w.run(35 * time.Second)
	for p := int32(0); p < gParts; p++ {
		if got := w.got[a][p]; len(got) == 0 || got[len(got)-1] != int64(p)*1000+6 {
			t.Errorf("partition %d: consumer %d returned %v, want up to %d", p, a, got, int64(p)*1000+6)
		}
	}
	if n := w.returned(); len(n) != 28 {
		t.Errorf("%d distinct records returned, want 28", len(n))
	}
}

// TestGroupPollTimeoutLeaves: an application whose processing step lasts
// longer than max.poll.interval.ms: its heartbeat thread sends LeaveGroup
// and resets its member id; the other consumer takes every partition;
// once the application polls again it joins anew and the group splits
// 2/2 again.
func TestGroupPollTimeoutLeaves(t *testing.T) {
	w := newGWorld(t)
	w.produce(5)
	a, b := w.add(gCfg(0)), w.add(gCfg(1))
	w.run(5 * time.Second)
	w.checkSplit(1, []int{2, 2}, a, b)
	w.outs(a, w.cs[a].Process(w.now, gMaxPoll+10*time.Second))
	w.run(5*time.Second + gMaxPoll - 500*time.Millisecond)
	if s := w.cs[a].Stats(); s.Leaves != 0 {
		t.Fatalf("left before max.poll.interval.ms: %+v", s)
	}
	w.run(5*time.Second + gMaxPoll + 5*time.Second)
	if s := w.cs[a].Stats(); s.Leaves != 1 {
		t.Fatalf("stats %+v, want one LeaveGroup", s)
	}
	if gen, id, stable := w.cs[a].Generation(); gen != model.NoGeneration || id != "" || stable {
		t.Errorf("after leaving: generation %d member %q stable %v, want -1, none, not stable", gen, id, stable)
	}
	w.checkSplit(2, []int{4}, b)
	w.run(60 * time.Second)
	w.checkSplit(3, []int{2, 2}, a, b)
}

// TestGroupStaleCommitFails: a static member that misses a rebalance (its
// heartbeats' answers are lost) keeps committing with its old
// generation; once the new generation is formed its commit is refused
// with ILLEGAL_GENERATION (CommitFailedException): it resets its
// generation, keeps its member id and rejoins; a known static member's
// join while the group completes its rebalance gets the current
// generation (classicGroupJoinExistingMember), so the group is Stable
// in generation 2 with all three.
func TestGroupStaleCommitFails(t *testing.T) {
	w := newGWorld(t)
	w.produce(5)
	cfg := gCfg(0)
	cfg.GroupInstanceID = "i0"
	cfg.AutoCommit = false // commitSync after each poll
	a, b := w.add(cfg), w.add(gCfg(1))
	w.run(5 * time.Second)
	w.checkSplit(1, []int{2, 2}, a, b)
	lost := true
	w.drop = func(i int, m model.Message, req bool) bool {
		_, hb := m.(*model.HeartbeatResponse)
		return lost && i == a && hb && !req
	}
	c := w.add(gCfg(2))
	// The join phase waits the rebalance timeout for the static member,
	// keeps it, and the new generation is formed without its SyncGroup.
	w.run(5*time.Second + gMaxPoll + 500*time.Millisecond)
	if st, gen, _, _, _ := w.g.Group(gGroup); gen != 2 {
		t.Fatalf("coordinator: state %v generation %d, want generation 2", st, gen)
	}
	if gen, _, stable := w.cs[a].Generation(); gen != 1 || !stable {
		t.Fatalf("the static member: generation %d stable %v, want still 1", gen, stable)
	}
	id := w.cs[a].GroupMetadata().MemberID
	var refused []model.ErrCode
	w.drop = func(i int, m model.Message, req bool) bool {
		if r, ok := m.(*model.OffsetCommitResponse); ok && i == a && r.Err != model.ErrNone {
			refused = append(refused, r.Err)
		}
		_, hb := m.(*model.HeartbeatResponse)
		return lost && i == a && hb && !req
	}
	w.produce(1)
	w.run(5*time.Second + gMaxPoll + time.Second)
	if s := w.cs[a].Stats(); s.CommitsFailed != 1 || !slices.Equal(refused, []model.ErrCode{model.ErrIllegalGeneration}) {
		t.Fatalf("stats %+v, refusals %v: want one commit refused with ILLEGAL_GENERATION", s, refused)
	}
	lost = false
	w.run(60 * time.Second)
	w.checkSplit(2, []int{1, 1, 2}, a, b, c)
	if got := w.cs[a].GroupMetadata().MemberID; got != id {
		t.Errorf("member id %q after ILLEGAL_GENERATION, want %q kept", got, id)
	}
}

// TestGroupUnknownMemberCommitFails: a dynamic member whose heartbeats
// are lost is removed when its session ends; it does not know, returns
// records of its old partitions (which the other member now reads too),
// and its commit is refused with UNKNOWN_MEMBER_ID
// (CommitFailedException): it resets its member id and joins anew.
func TestGroupUnknownMemberCommitFails(t *testing.T) {
	w := newGWorld(t)
	w.produce(5)
	cfg := gCfg(0)
	cfg.AutoCommit = false // commitSync after each poll
	a, b := w.add(cfg), w.add(gCfg(1))
	w.run(5 * time.Second)
	w.checkSplit(1, []int{2, 2}, a, b)
	id := w.cs[a].GroupMetadata().MemberID
	lost := true
	var refused []model.ErrCode
	w.drop = func(i int, m model.Message, req bool) bool {
		if r, ok := m.(*model.OffsetCommitResponse); ok && i == a && r.Err != model.ErrNone {
			refused = append(refused, r.Err)
		}
		_, hb := m.(*model.HeartbeatRequest)
		return lost && i == a && hb && req
	}
	w.run(25 * time.Second)
	w.checkSplit(2, []int{4}, b)
	if gen, _, stable := w.cs[a].Generation(); gen != 1 || !stable {
		t.Fatalf("the removed member: generation %d stable %v, want still 1", gen, stable)
	}
	w.produce(1)
	w.run(25*time.Second + 500*time.Millisecond)
	if s := w.cs[a].Stats(); s.CommitsFailed != 1 || !slices.Equal(refused, []model.ErrCode{model.ErrUnknownMemberID}) {
		t.Fatalf("stats %+v, refusals %v: want one commit refused with UNKNOWN_MEMBER_ID", s, refused)
	}
	// The zombie returned its old partitions' new records, as the
	// member that owns them now did.
	for p := int32(0); p < 2; p++ {
		if got := w.got[a][p]; got[len(got)-1] != int64(p)*1000+5 {
			t.Errorf("partition %d: the removed member returned %v, want up to %d", p, got, int64(p)*1000+5)
		}
	}
	lost = false
	w.run(40 * time.Second)
	w.checkSplit(3, []int{2, 2}, a, b)
	if got := w.cs[a].GroupMetadata().MemberID; got == id {
		t.Errorf("member id %q kept after UNKNOWN_MEMBER_ID, want a new one", got)
	}
}

// TestGroupNoneUnchanged: the zero Protocol joins no group and sends no
// group request.
func TestGroupNoneUnchanged(t *testing.T) {
	w := newCWorld(t, []int32{0}, 1, Config{Partitions: []int32{0}, Reset: ResetEarliest, AutoCommit: true, AutoCommitInterval: 100 * time.Millisecond})
	mustAppend(t, w.part(0, 0).Append(0, batch(-1, false, 0, 0, 3)))
	w.start()
	w.runUntil(ms(5000))
	for k := range w.sent {
		if k == "Join" || k == "Sync" || k == "Hear" || k == "Leav" {
			t.Errorf("sent %s without a group protocol", k)
		}
	}
	if md := w.c.GroupMetadata(); !md.None() {
		t.Errorf("GroupMetadata %+v, want none", md)
	}
}

// TestGroupFencedInstanceIsFatal: a second process with the same
// group.instance.id replaces the first (static membership); the first's
// next heartbeat is answered FENCED_INSTANCE_ID, which stops it.
func TestGroupFencedInstanceIsFatal(t *testing.T) {
	w := newGWorld(t)
	w.produce(5)
	cfg := gCfg(0)
	cfg.GroupInstanceID = "i0"
	a, b := w.add(cfg), w.add(gCfg(1))
	w.run(5 * time.Second)
	w.checkSplit(1, []int{2, 2}, a, b)
	cfg.ClientID = "c2"
	z := w.add(cfg)
	w.run(15 * time.Second)
	if e := w.cs[a].Fatal(); e != model.ErrFencedInstanceID {
		t.Fatalf("the replaced instance: fatal %v, want FENCED_INSTANCE_ID", e)
	}
	w.checkSplit(1, []int{2, 2}, z, b)
}

// TestGroupRandom: three members under random processing steps (some
// past max.poll.interval.ms), crashes with restarts and new records, for
// 30 seeds; after a quiet minute every member is Stable in the
// coordinator's generation, the assignments are disjoint and cover every
// partition, every record was returned at least once, and the same seed
// gives the same run.
func TestGroupRandom(t *testing.T) {
	var tot, again GroupStats
	for seed := uint64(1); seed <= 30; seed++ {
		r1, g1 := randomGroupRun(t, seed, &tot)
		r2, g2 := randomGroupRun(t, seed, &again)
		if g1 != g2 || !maps.Equal(r1, r2) || tot != again {
			t.Fatalf("seed %d: two runs differ (generation %d vs %d)", seed, g1, g2)
		}
	}
	// The runs did rebalance, and some members left on a poll timeout.
	if tot.Joins < 30*3*3 || tot.Leaves == 0 {
		t.Errorf("over 30 seeds: %+v, want rebalances and poll-timeout leaves", tot)
	}
}

func randomGroupRun(t *testing.T, seed uint64, tot *GroupStats) (map[int64]int, int32) {
	rng := rand.New(rand.NewPCG(seed, 34))
	w := newGWorld(t)
	w.produce(3)
	for i := 0; i < 3; i++ {
		cfg := gCfg(i)
		cfg.AutoCommit = rng.IntN(2) == 0
		w.add(cfg)
	}
	for step := 0; step < 40; step++ {
		w.run(time.Duration(w.now) + time.Duration(500+rng.IntN(4500))*time.Millisecond)
		i := rng.IntN(3)
		switch rng.IntN(4) {
		case 0:
			w.outs(i, w.cs[i].Process(w.now, time.Duration(rng.IntN(45))*time.Second))
		case 1:
			w.cs[i].Crash()
			w.outs(i, w.cs[i].Restart(w.now, false))
		default:
			w.produce(1 + rng.IntN(3))
		}
	}
	w.run(time.Duration(w.now) + 90*time.Second)
	st, gen, _, _, _ := w.g.Group(gGroup)
	if st != coordinator.GroupStable {
		t.Fatalf("seed %d: coordinator state %v after the quiet period", seed, st)
	}
	w.checkSplit(gen, []int{1, 1, 2}, 0, 1, 2)
	n := w.returned()
	for p := int32(0); p < gParts; p++ {
		hw := w.b.Partition(p).HighWatermark()
		for k := int64(0); k < hw; k++ {
			if n[int64(p)*1000+k] == 0 {
				t.Fatalf("seed %d: record %d never returned", seed, int64(p)*1000+k)
			}
		}
	}
	for _, c := range w.cs {
		s := c.Stats()
		tot.Joins += s.Joins
		tot.Leaves += s.Leaves
	}
	return n, gen
}

// BenchmarkGroupHeartbeat: one heartbeat of a Stable member of a group of
// two, the consumer's turn of its heartbeat thread, the coordinator's
// answer and the consumer's handling of it.
func BenchmarkGroupHeartbeat(b *testing.B) {
	w := newGWorld(b)
	a, _ := w.add(gCfg(0)), w.add(gCfg(1))
	w.run(5 * time.Second)
	c := w.cs[a]
	now := w.now
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		now = max(now, c.grp.nextHeartbeat)
		c.grp.lastPoll = now // the application polls meanwhile
		var req model.Message
		for _, o := range c.Wake(now, hbBit|c.grp.hbToken) {
			if o.Kind == model.OutSend {
				req = o.Msg
			}
		}
		for _, o := range w.g.Step(now, model.Peer{Node: int32(a)}, req) {
			if o.Kind == model.OutReply {
				c.Step(now, model.Peer{}, o.Msg)
			}
		}
	}
	if _, _, stable := c.Generation(); !stable || c.Stats().Heartbeats < b.N {
		b.Fatalf("not Stable, or %d heartbeats for %d", c.Stats().Heartbeats, b.N)
	}
}

// TestGroupMuteHeartbeat: a member whose heartbeat thread is starved
// past session.timeout.ms while its application polls on is removed by
// the coordinator (the other takes every partition); its first heartbeat
// after the silence is refused, it resets its generation, rejoins, and
// the group splits 2/2 again. A silence shorter than the session changes
// nothing. Without auto-commit: an accepted OffsetCommit restarts the
// member's session too (OffsetMetadataManager.commitOffset), so a member
// that auto-commits each second is not removed.
func TestGroupMuteHeartbeat(t *testing.T) {
	w := newGWorld(t)
	w.produce(5)
	ca, cb := gCfg(0), gCfg(1)
	ca.AutoCommit, cb.AutoCommit = false, false
	a, b := w.add(ca), w.add(cb)
	w.run(5 * time.Second)
	w.checkSplit(1, []int{2, 2}, a, b)
	w.cs[a].MuteHeartbeat(w.now.Add(gSession / 2))
	w.run(5*time.Second + gSession)
	if _, _, _, members, _ := w.g.Group(gGroup); len(members) != 2 {
		t.Fatalf("members %d after a short silence, want 2", len(members))
	}
	hb := w.cs[a].Stats().Heartbeats
	w.cs[a].MuteHeartbeat(w.now.Add(gSession + 10*time.Second))
	w.run(5*time.Second + 2*gSession + 6*time.Second)
	if s := w.cs[a].Stats(); s.Heartbeats != hb {
		t.Fatalf("%d heartbeats during the silence", s.Heartbeats-hb)
	}
	w.checkSplit(2, []int{4}, b)
	w.run(5*time.Second + 3*gSession + 30*time.Second)
	if s := w.cs[a].Stats(); s.Heartbeats == hb || s.Joins < 2 {
		t.Fatalf("stats %+v: want heartbeats and a rejoin after the silence", s)
	}
	w.checkSplit(3, []int{2, 2}, a, b)
}
