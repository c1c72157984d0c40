package broker

import (
	"container/heap"
	"strconv"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/controller"
	"github.com/idemsim/idemsim/model/storage"
	"github.com/idemsim/idemsim/sim"
)

// A miniature world for one partition replicated on brokers 0..n-1 with a
// controller: it shows how the broker and the world wire the replication
// building blocks (docs/replication.md), and drives five failover scenarios.
// Every message takes 1 ms; a crashed broker loses what is sent to it.

type tEvent struct {
	at  sim.Time
	seq int
	run func()
}

type tQueue []tEvent

func (q tQueue) Len() int { return len(q) }
func (q tQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q tQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *tQueue) Push(x any)   { *q = append(*q, x.(tEvent)) }
func (q *tQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

type tBroker struct {
	id   int32
	log  *storage.ReplicaLog
	ls   *LeaderState
	fet  *ReplicaFetcher
	down bool
	// gen counts restarts: timers of an earlier incarnation are dropped.
	gen int
}

type tCluster struct {
	t       *testing.T
	now     sim.Time
	q       tQueue
	seq     int
	ctl     *controller.Controller
	brokers []*tBroker
	lcfg    LeaderConfig
	// completed collects acks=all outcomes by wait id, per broker.
	completed map[int32]map[WaitID]model.ErrCode
	notes     []string
	// isolated brokers exchange no message with anyone (the producer's
	// calls are direct and unaffected).
	isolated map[int32]bool
	// noFetch brokers send no fetch requests (alive, heartbeating).
	noFetch map[int32]bool
}

func newCluster(t *testing.T, n int, lcfg LeaderConfig, ccfg controller.ControllerConfig) *tCluster {
	c := &tCluster{t: t, lcfg: lcfg, completed: map[int32]map[WaitID]model.ErrCode{}, isolated: map[int32]bool{}, noFetch: map[int32]bool{}}
	replicas := make([]int32, n)
	for i := range replicas {
		replicas[i] = int32(i)
	}
	c.ctl = controller.NewController(ccfg, n, []model.PartitionState{{Partition: 0, Replicas: replicas, ISR: replicas, Leader: 0}})
	for i := 0; i < n; i++ {
		c.brokers = append(c.brokers, c.newBroker(int32(i)))
		c.completed[int32(i)] = map[WaitID]model.ErrCode{}
	}
	c.ctlOuts(c.ctl.Start(0))
	for _, b := range c.brokers {
		c.heartbeat(b, b.gen)
		c.shrinkCheck(b, b.gen)
	}
	return c
}

func (c *tCluster) newBroker(id int32) *tBroker {
	log := storage.NewReplicaLog(storage.NewPartition(0, storage.PartitionConfig{}))
	if len(c.brokers) > int(id) {
		log = c.brokers[id].log // a restart keeps the log
		log.Part.Restart(c.now, false)
	}
	return &tBroker{id: id, log: log, ls: NewLeaderState(c.lcfg, id, log), fet: NewReplicaFetcher(FetcherConfig{}, id, 0, log)}
}

func (c *tCluster) at(t sim.Time, f func()) {
	c.seq++
	heap.Push(&c.q, tEvent{at: t, seq: c.seq, run: f})
}

func (c *tCluster) runUntil(t sim.Time) {
	for len(c.q) > 0 && c.q[0].at <= t {
		e := heap.Pop(&c.q).(tEvent)
		c.now = e.at
		e.run()
	}
	c.now = t
}

// ctlID is the controller's id for isolation checks.
const ctlID = -1

// toBroker delivers f to broker b in 1 ms unless b is down by then or
// either end is isolated.
func (c *tCluster) toBroker(from int32, b *tBroker, f func()) {
	gen := b.gen
	if c.isolated[from] || c.isolated[b.id] {
		return
	}
	c.at(c.now.Add(time.Millisecond), func() {
		if !b.down && b.gen == gen {
			f()
		}
	})
}

// toCtl delivers f to the controller in 1 ms unless from is isolated.
func (c *tCluster) toCtl(from int32, f func()) {
	if !c.isolated[from] {
		c.at(c.now.Add(time.Millisecond), f)
	}
}

// heartbeat sends a heartbeat now and every 2000 ms while b lives.
func (c *tCluster) heartbeat(b *tBroker, gen int) {
	if b.down || b.gen != gen {
		return
	}
	req := &model.BrokerHeartbeatRequest{BrokerID: b.id}
	c.toCtl(b.id, func() { c.ctlOuts(c.ctl.Step(c.now, model.Peer{Node: b.id}, req)) })
	c.at(c.now.Add(DefaultBrokerHeartbeatInterval), func() { c.heartbeat(b, gen) })
}

// shrinkCheck runs the ISR shrink check every lag/2 from broker start.
func (c *tCluster) shrinkCheck(b *tBroker, gen int) {
	c.at(c.now.Add(c.lcfg.ShrinkInterval()), func() {
		if b.down || b.gen != gen {
			return
		}
		c.leaderEffects(b, b.ls.MaybeShrinkISR(c.now))
		c.shrinkCheck(b, gen)
	})
}

func (c *tCluster) ctlOuts(outs []model.Out) {
	for _, o := range outs {
		switch o.Kind {
		case model.OutSend:
			b, m := c.brokers[o.Dest], o.Msg.(*model.MetadataUpdate)
			c.toBroker(ctlID, b, func() { c.applyMetadata(b, m) })
		case model.OutReply:
			if r, ok := o.Msg.(*model.AlterPartitionResponse); ok {
				b := c.brokers[o.Peer.Node]
				c.toBroker(ctlID, b, func() { c.leaderEffects(b, b.ls.OnAlterPartitionResponse(c.now, r)) })
			}
		case model.OutWake:
			tok := o.Timer
			c.at(o.At, func() { c.ctlOuts(c.ctl.Wake(c.now, tok)) })
		case model.OutNote:
			c.notes = append(c.notes, c.now.String()+" controller: "+o.Note)
		}
	}
}

func (c *tCluster) applyMetadata(b *tBroker, m *model.MetadataUpdate) {
	b.ls.SetFenced(m.Fenced)
	for _, st := range m.Partitions {
		c.leaderEffects(b, b.ls.ApplyMetadata(c.now, st))
		if st.Leader == b.id {
			b.fet.Stop()
		} else {
			c.fetcherOuts(b, b.fet.BecomeFollower(c.now, st))
		}
	}
}

func (c *tCluster) fetcherOuts(b *tBroker, outs []model.Out) {
	gen := b.gen
	for _, o := range outs {
		switch o.Kind {
		case model.OutSend:
			leader, req := c.brokers[o.Dest], o.Msg.(*model.FetchRequest)
			if c.noFetch[b.id] {
				continue
			}
			c.toBroker(b.id, leader, func() {
				resp, eff := leader.ls.OnFetch(c.now, model.Peer{Node: b.id}, req)
				if resp != nil {
					c.toBroker(leader.id, b, func() { c.fetcherOuts(b, b.fet.Step(c.now, model.Peer{Node: leader.id}, resp)) })
				}
				c.leaderEffects(leader, eff)
			})
		case model.OutWake:
			tok := o.Timer
			c.at(o.At, func() {
				if !b.down && b.gen == gen {
					c.fetcherOuts(b, b.fet.Wake(c.now, tok))
				}
			})
		case model.OutNote:
			c.notes = append(c.notes, c.now.String()+" b"+strconv.FormatInt(int64(b.id), 10)+": "+o.Note)
		}
	}
}

func (c *tCluster) leaderEffects(b *tBroker, eff LeaderEffects) {
	for _, w := range eff.Completed {
		c.completed[b.id][w.ID] = w.Err
	}
	for _, f := range eff.Fetches {
		to, resp := c.brokers[f.Peer.Node], f.Resp
		c.toBroker(b.id, to, func() { c.fetcherOuts(to, to.fet.Step(c.now, model.Peer{Node: b.id}, resp)) })
	}
	if eff.Alter != nil {
		req := eff.Alter
		c.toCtl(b.id, func() { c.ctlOuts(c.ctl.Step(c.now, model.Peer{Node: b.id}, req)) })
	}
	if at, ok := b.ls.NextDeadline(); ok {
		gen := b.gen
		c.at(at, func() {
			if !b.down && b.gen == gen {
				c.leaderEffects(b, b.ls.Tick(c.now))
			}
		})
	}
}

// produce appends a batch on broker b as the broker will: the leader
// checks, the append, the epoch stamp, the HW rule, and for acks=all a
// wait. It returns the result and, for acks=all, the wait (0 if done at
// once, with its error in done).
func (c *tCluster) produce(b *tBroker, acks int8, batch model.Batch) (model.AppendResult, WaitID, model.ErrCode) {
	if e := b.ls.CheckAppend(acks); e != model.ErrNone {
		return errResult(e, "leader check"), 0, e
	}
	res := b.log.Part.Append(c.now, batch)
	if res.Err != model.ErrNone {
		return res, 0, res.Err
	}
	b.log.OnLeaderAppend(b.ls.State().LeaderEpoch, res)
	c.leaderEffects(b, b.ls.OnLeaderAppend(c.now))
	if acks != -1 {
		return res, 0, model.ErrNone
	}
	id, done, err := b.ls.AwaitCommit(c.now, res.LastOffset+1, 30*time.Second)
	if !done {
		c.leaderEffects(b, LeaderEffects{})
		return res, id, model.ErrNone
	}
	return res, 0, err
}

func (c *tCluster) crash(b *tBroker) {
	b.down = true
	b.gen++
	b.fet.Stop()
}

func (c *tCluster) restart(b *tBroker) {
	nb := c.newBroker(b.id)
	nb.gen = b.gen + 1
	*b = *nb
	// The restarted broker replays the metadata log.
	st, _ := c.ctl.Partition(0)
	c.toBroker(ctlID, b, func() { c.applyMetadata(b, &model.MetadataUpdate{Partitions: []model.PartitionState{st}}) })
	c.heartbeat(b, b.gen)
	c.shrinkCheck(b, b.gen)
}

func (c *tCluster) dump() {
	for _, n := range c.notes {
		c.t.Log(n)
	}
	for _, b := range c.brokers {
		c.t.Logf("b%d LEO %d HW %d epochs %v fetcher %v", b.id, b.log.LogEndOffset(), b.log.HighWatermark(), b.log.Epochs.Entries(), b.fet.State())
	}
}

// TestClusterS1AcksOneLoss: an acks=1 write acknowledged
// by the leader is lost when it crashes before any follower fetched it;
// the old leader truncates it when it rejoins.
func TestClusterS1AcksOneLoss(t *testing.T) {
	c := newCluster(t, 3, LeaderConfig{}, controller.ControllerConfig{})
	c.runUntil(ms(100)) // metadata applied, followers parked on fetches
	b0, b1, b2 := c.brokers[0], c.brokers[1], c.brokers[2]
	// A is appended and acknowledged; broker 0 crashes before the
	// answers to the parked fetches leave it.
	res := mustOK(t, b0.log.Part.Append(c.now, testBatch(0, model.NoProducerID, model.NoEpoch, 0, 4, false, c.now)))
	b0.log.OnLeaderAppend(0, res)
	c.crash(b0)
	c.runUntil(ms(9000))
	if st, _ := c.ctl.Partition(0); st.Leader != 0 {
		t.Fatalf("failover before the session timeout: %+v", st)
	}
	c.runUntil(ms(9100))
	st, _ := c.ctl.Partition(0)
	if st.Leader != 1 || st.LeaderEpoch != 1 || len(st.ISR) != 2 {
		c.dump()
		t.Fatalf("after fencing: %+v", st)
	}
	if !b1.ls.IsLeader() || b1.log.LatestEpoch() != 1 {
		t.Fatal("broker 1 did not take over")
	}
	res, _, _ = c.produce(b1, 1, testBatch(0, model.NoProducerID, model.NoEpoch, 0, 2, false, c.now))
	if res.FirstOffset != 0 {
		t.Fatalf("B at %d, want 0", res.FirstOffset)
	}
	c.restart(b0)
	c.runUntil(ms(30000))
	for _, b := range []*tBroker{b0, b1, b2} {
		if b.log.LogEndOffset() != 3 || len(b.log.Part.Log()) != 1 {
			c.dump()
			t.Fatalf("b%d LEO %d: logs did not converge on B", b.id, b.log.LogEndOffset())
		}
	}
	if b0.log.LatestEpoch() != 1 || b1.log.HighWatermark() != 3 {
		c.dump()
		t.Fatalf("b0 epoch %d, leader HW %d", b0.log.LatestEpoch(), b1.log.HighWatermark())
	}
	if st, _ := c.ctl.Partition(0); len(st.ISR) != 3 {
		c.dump()
		t.Fatalf("broker 0 did not rejoin the ISR: %+v", st)
	}
}

// TestClusterS9FollowerCrashStallsAcksAll: a follower crash
// holds acks=all writes until the controller fences it (~9 s) and the
// leader applies the smaller ISR (leader epoch unchanged).
func TestClusterS9FollowerCrashStallsAcksAll(t *testing.T) {
	c := newCluster(t, 3, LeaderConfig{MinInsyncReplicas: 2}, controller.ControllerConfig{})
	c.runUntil(ms(100))
	b0, b2 := c.brokers[0], c.brokers[2]
	c.crash(b2)
	_, id, _ := c.produce(b0, -1, testBatch(0, model.NoProducerID, model.NoEpoch, 0, 4, false, c.now))
	if id == 0 {
		t.Fatal("acks=all done at once")
	}
	c.runUntil(ms(9000))
	if _, ok := c.completed[0][id]; ok {
		t.Fatal("completed before the follower was fenced")
	}
	c.runUntil(ms(9100))
	st, _ := c.ctl.Partition(0)
	if st.Leader != 0 || st.LeaderEpoch != 0 || st.PartitionEpoch != 1 || len(st.ISR) != 2 {
		t.Fatalf("after fencing b2: %+v", st)
	}
	if err, ok := c.completed[0][id]; !ok || err != model.ErrNone {
		c.dump()
		t.Fatalf("acks=all after the ISR shrank: %v %v", err, ok)
	}
}

// TestClusterS6DedupIffReplicated: the new leader has the
// producer state of every batch it replicated, so a retry of b0 is a
// duplicate and b1 (never replicated) is appended once, in order.
func TestClusterS6DedupIffReplicated(t *testing.T) {
	c := newCluster(t, 3, LeaderConfig{FetchMaxEntries: 1}, controller.ControllerConfig{})
	c.runUntil(ms(100))
	b0, b1 := c.brokers[0], c.brokers[1]
	// Only broker 1 replicates, one batch per fetch: stop broker 2's
	// fetcher so that it stays behind but alive.
	c.brokers[2].fet.Stop()
	c.produce(b0, -1, testBatch(0, 7, 0, 0, 4, false, c.now))
	c.runUntil(ms(101)) // broker 1 has b0; its next fetch is in flight
	c.produce(b0, -1, testBatch(0, 7, 0, 5, 9, false, c.now))
	c.crash(b0) // before that fetch arrives
	if b1.log.LogEndOffset() != 5 || b0.log.LogEndOffset() != 10 {
		c.dump()
		t.Fatalf("b1 LEO %d", b1.log.LogEndOffset())
	}
	c.runUntil(ms(9100))
	if !b1.ls.IsLeader() {
		c.dump()
		t.Fatal("b1 not leader")
	}
	r, _, _ := c.produce(b1, 1, testBatch(0, 7, 0, 0, 4, false, c.now))
	if !r.Duplicate || r.FirstOffset != 0 {
		t.Fatalf("retry of b0: %+v", r)
	}
	r, _, _ = c.produce(b1, 1, testBatch(0, 7, 0, 5, 9, false, c.now))
	if r.Duplicate || r.Err != model.ErrNone || r.FirstOffset != 5 {
		t.Fatalf("retry of b1: %+v", r)
	}
}

// TestClusterS5IsolatedOldLeader: broker 0 is cut off from the controller and
// the other brokers; it is fenced and replaced, yet keeps accepting produces
// (nothing in Kafka's BrokerLifecycleManager stops a broker that lost its
// session from serving). Its acks=1 write is acknowledged and later truncated;
// its acks=all write is appended but never acknowledged and ends
// REQUEST_TIMED_OUT; on healing it applies the new metadata and truncates to
// the new leader's end of epoch 0.
func TestClusterS5IsolatedOldLeader(t *testing.T) {
	c := newCluster(t, 3, LeaderConfig{}, controller.ControllerConfig{})
	c.runUntil(ms(100))
	b0, b1 := c.brokers[0], c.brokers[1]
	c.produce(b0, -1, testBatch(0, model.NoProducerID, model.NoEpoch, 0, 1, false, c.now))
	c.runUntil(ms(200))
	if b0.log.HighWatermark() != 2 || b1.log.LogEndOffset() != 2 {
		c.dump()
		t.Fatal("initial write not replicated")
	}
	c.isolated[0] = true
	c.runUntil(ms(9500))
	if st, _ := c.ctl.Partition(0); st.Leader != 1 || st.LeaderEpoch != 1 {
		c.dump()
		t.Fatalf("not failed over: %+v", st)
	}
	if !b0.ls.IsLeader() {
		t.Fatal("the isolated broker learned of the failover")
	}
	r1, _, _ := c.produce(b0, 1, testBatch(0, model.NoProducerID, model.NoEpoch, 0, 2, false, c.now))
	r2, id, _ := c.produce(b0, -1, testBatch(0, model.NoProducerID, model.NoEpoch, 0, 1, false, c.now))
	if r1.Err != model.ErrNone || r2.Err != model.ErrNone || id == 0 {
		t.Fatalf("isolated leader refused: %+v %+v", r1, r2)
	}
	c.runUntil(ms(9500 + 30001))
	if err, ok := c.completed[0][id]; !ok || err != model.ErrRequestTimedOut {
		c.dump()
		t.Fatalf("acks=all on the isolated leader: %v %v", err, ok)
	}
	// Its ISR shrink (at the 45000 check, > lag after the followers' last
	// caught-up time) never reaches the controller and stays pending.
	c.runUntil(ms(46000))
	if b0.log.LogEndOffset() != 7 || !b0.ls.ISRChangePending() || len(b0.ls.MaximalISR()) != 3 {
		t.Fatalf("isolated leader: LEO %d, pending %v", b0.log.LogEndOffset(), b0.ls.ISRChangePending())
	}
	// Heal: broker 0 replays the metadata and follows broker 1.
	delete(c.isolated, 0)
	st, _ := c.ctl.Partition(0)
	c.toBroker(ctlID, b0, func() { c.applyMetadata(b0, &model.MetadataUpdate{Partitions: []model.PartitionState{st}}) })
	c.runUntil(ms(50000))
	if b0.ls.IsLeader() || b0.log.LogEndOffset() != b1.log.LogEndOffset() || b0.log.LogEndOffset() != 2 {
		c.dump()
		t.Fatalf("after healing: b0 LEO %d, b1 LEO %d", b0.log.LogEndOffset(), b1.log.LogEndOffset())
	}
}

// TestClusterS3UncleanLoss: followers stop fetching, the
// leader shrinks the ISR to itself (min.insync.replicas 1) and
// acknowledges acks=all writes with one copy; it crashes; with unclean
// election (3.9+) an out-of-sync follower leads and the acknowledged
// records are lost, truncated from the old leader when it returns.
// Without it (or before 3.9) the partition stays offline and the records
// survive the old leader's return.
func TestClusterS3UncleanLoss(t *testing.T) {
	for _, tc := range []struct {
		ccfg controller.ControllerConfig
		lost bool
	}{
		{controller.ControllerConfig{UncleanLeaderElection: true}, true},
		{controller.ControllerConfig{UncleanLeaderElection: true, Version: 308}, false},
		{controller.ControllerConfig{}, false},
	} {
		c := newCluster(t, 3, LeaderConfig{}, tc.ccfg)
		c.noFetch[1], c.noFetch[2] = true, true
		c.runUntil(ms(20000))
		b0 := c.brokers[0]
		_, id, _ := c.produce(b0, -1, testBatch(0, model.NoProducerID, model.NoEpoch, 0, 9, false, c.now))
		c.runUntil(ms(30000))
		if _, ok := c.completed[0][id]; ok || id == 0 {
			t.Fatal("completed before the shrink")
		}
		c.runUntil(ms(45100)) // shrink at 45000, committed
		if st, _ := c.ctl.Partition(0); len(st.ISR) != 1 || c.completed[0][id] != model.ErrNone {
			c.dump()
			t.Fatalf("after the shrink: %+v, wait %v", st, c.completed[0][id])
		}
		// C: acks=all, acknowledged with one copy (HW = LEO).
		r, cid, err := c.produce(b0, -1, testBatch(0, model.NoProducerID, model.NoEpoch, 0, 9, false, c.now))
		if r.FirstOffset != 10 || cid != 0 || err != model.ErrNone {
			t.Fatalf("C: %+v wait %d err %v", r, cid, err)
		}
		c.crash(b0)
		c.runUntil(ms(60000))
		st, _ := c.ctl.Partition(0)
		if tc.lost != (st.Leader == 1) || !tc.lost && st.Leader != -1 {
			c.dump()
			t.Fatalf("%+v: after the crash %+v", tc.ccfg, st)
		}
		c.restart(b0)
		c.runUntil(ms(70000))
		if got := b0.log.LogEndOffset(); tc.lost && got != 0 || !tc.lost && got != 20 {
			c.dump()
			t.Fatalf("%+v: old leader's LEO %d after return", tc.ccfg, got)
		}
		if !tc.lost {
			if st, _ := c.ctl.Partition(0); st.Leader != 0 {
				t.Fatalf("%+v: old leader not re-elected: %+v", tc.ccfg, st)
			}
		}
	}
}
