package broker

import (
	"slices"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/controller"
	"github.com/idemsim/idemsim/model/storage"
)

// marker appends a transaction marker on leader b as the broker's
// WriteTxnMarkers handling does: the append, the epoch stamp and the HW
// rule.
func (c *tCluster) marker(b *tBroker, pid model.ProducerID, m model.MarkerType) model.AppendResult {
	c.t.Helper()
	res := mustOK(c.t, b.log.Part.AppendMarker(c.now, pid, 0, 0, m))
	b.log.OnLeaderAppend(b.ls.State().LeaderEpoch, res)
	c.leaderEffects(b, b.ls.OnLeaderAppend(c.now))
	return res
}

// TestClusterLSOIsBoundedByTheHighWatermark: in a replicated partition
// the last stable offset is min(high watermark, first unstable offset)
// (core/src/main/scala/kafka/log/UnifiedLog.scala lastStableOffset), and
// the high watermark is the smallest log end offset of the ISR, not the
// leader's log end. A follower that stops fetching while still in the ISR
// holds the high watermark, so a transaction committed on the leader
// stays unstable, and a read_committed read stops below it, until the
// follower leaves the ISR (here the controller fences it, its heartbeats
// cut off with its fetches). A follower's aborted
// transaction index follows the leader's.
func TestClusterLSOIsBoundedByTheHighWatermark(t *testing.T) {
	c := newCluster(t, 3, LeaderConfig{}, controller.ControllerConfig{})
	c.runUntil(ms(100))
	b0, b1, b2 := c.brokers[0], c.brokers[1], c.brokers[2]
	c.produce(b0, 1, testBatch(0, model.NoProducerID, model.NoEpoch, 0, 1, false, c.now)) // 0..1
	c.runUntil(ms(200))
	if hw := b0.log.Part.HighWatermark(); hw != 2 {
		c.dump()
		t.Fatalf("HW %d once every replica fetched offsets 0..1, want 2", hw)
	}
	c.isolated[b2.id] = true                                // b2 stays in the ISR, behind
	c.produce(b0, 1, testBatch(0, 7, 0, 0, 1, true, c.now)) // 2..3, pid 7 opens
	c.marker(b0, 7, model.MarkerCommit)                     // 4
	c.produce(b0, 1, testBatch(0, 8, 0, 0, 0, true, c.now)) // 5, pid 8 opens
	c.marker(b0, 8, model.MarkerAbort)                      // 6
	c.runUntil(ms(300))
	p := b0.log.Part
	if p.LogEndOffset() != 7 || p.HighWatermark() != 2 || b0.log.HighWatermark() != 2 {
		c.dump()
		t.Fatalf("leader LEO %d HW %d (log's %d), want 7 and 2: b2 is in the ISR at 2", p.LogEndOffset(), p.HighWatermark(), b0.log.HighWatermark())
	}
	if first, ok := p.FirstUnstableOffset(); !ok || first != 2 {
		t.Errorf("first unstable offset %d %v: the commit at 4 is above the HW, so its transaction at 2 is unreplicated", first, ok)
	}
	if lso := p.LastStableOffset(); lso != 2 {
		t.Errorf("LSO %d with HW 2 and the log end 7, want 2", lso)
	}
	wantOffsets(t, "above the HW", p.ReadCommitted(0), 0)
	want := []storage.AbortedTxn{{PID: 8, FirstOffset: 5, LastOffset: 6, LastStableOffset: 7}}
	if got := b1.log.Part.AbortedTxns(); !slices.Equal(got, want) || b1.log.LogEndOffset() != 7 {
		t.Errorf("follower b1 (LEO %d) aborted index %v, want the leader's %v", b1.log.LogEndOffset(), got, want)
	}
	if got := p.AbortedTxns(); !slices.Equal(got, want) {
		t.Errorf("leader aborted index %v, want %v", got, want)
	}
	// The ISR shrinks to {b0, b1}; the HW moves to the log end and both
	// transactions are decided.
	c.runUntil(ms(100).Add(3 * DefaultReplicaLagTimeMax))
	st, _ := c.ctl.Partition(0)
	if slices.Contains(st.ISR, b2.id) || p.HighWatermark() != 7 {
		c.dump()
		t.Fatalf("ISR %v, HW %d: want b2 out and the HW at 7", st.ISR, p.HighWatermark())
	}
	if _, ok := p.FirstUnstableOffset(); ok || p.LastStableOffset() != 7 {
		t.Errorf("LSO %d with nothing open and HW 7, want 7", p.LastStableOffset())
	}
	wantOffsets(t, "after the ISR shrank", p.ReadCommitted(0), 0, 2)
	if hw := b1.log.Part.HighWatermark(); hw > 7 {
		t.Errorf("follower HW %d above the leader's", hw)
	}
}

func wantOffsets(t *testing.T, what string, got []model.LogEntry, want ...int64) {
	t.Helper()
	g := []int64{}
	for _, e := range got {
		g = append(g, e.FirstOffset)
	}
	if want == nil {
		want = []int64{}
	}
	if !slices.Equal(g, want) {
		t.Errorf("%s: read_committed batches at %v, want %v", what, g, want)
	}
}

// TestConsumerFetchReplicated: a replicated leader answers a consumer's
// fetch up to its high watermark (read_uncommitted), with the leader
// epoch checks of Partition.checkCurrentLeaderEpoch; a follower answers
// NOT_LEADER_OR_FOLLOWER. (A high watermark below the log end is
// TestClusterLSOIsBoundedByTheHighWatermark's.)
func TestConsumerFetchReplicated(t *testing.T) {
	w := newBWorld(t, 3, LeaderConfig{})
	w.runUntil(ms(100))
	w.produce(0, 1, 0) // offset 0, acks=1
	w.runUntil(ms(102))
	client := int32(len(w.brokers)) + 1
	fetch := func(to int32, epoch int32) *model.ConsumerFetchResponse {
		t.Helper()
		n := len(w.replies)
		w.step(client, to, &model.ConsumerFetchRequest{CorrelationID: 9, Partition: 0, FetchOffset: 0, CurrentLeaderEpoch: epoch})
		w.runUntil(w.now.Add(2 * time.Millisecond))
		if len(w.replies) != n+1 {
			t.Fatalf("no answer from b%d", to)
		}
		return w.replies[n].(*model.ConsumerFetchResponse)
	}
	w.runUntil(ms(300))
	if r := fetch(0, 0); r.Err != model.ErrNone || r.HighWatermark != 1 || len(r.Entries) != 1 {
		t.Fatalf("after replication: %+v", r)
	}
	if r := fetch(0, 1); r.Err != model.ErrUnknownLeaderEpoch {
		t.Errorf("a newer epoch: %v, want UNKNOWN_LEADER_EPOCH", r.Err)
	}
	if r := fetch(1, 0); r.Err != model.ErrNotLeaderOrFollower {
		t.Errorf("a follower: %v, want NOT_LEADER_OR_FOLLOWER", r.Err)
	}
}
