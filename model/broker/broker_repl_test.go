package broker

import (
	"container/heap"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/controller"
	"github.com/idemsim/idemsim/sim"
)

// A miniature world of replicated Brokers and a Controller (node ids:
// brokers 0..n-1, the controller n, the client n+1): every message takes
// 1 ms; replies go back to the sender's node id.
type bWorld struct {
	t       *testing.T
	now     sim.Time
	q       tQueue
	seq     int
	brokers []*Broker
	ctl     *controller.Controller
	// replies collects what the brokers answered the client, in order.
	replies []model.Message
	// stops records when each broker asked to stop (OutStop), -1 if not.
	stops []sim.Time
}

func newBWorld(t *testing.T, n int, lcfg LeaderConfig) *bWorld {
	w := &bWorld{t: t}
	leaders := []int32{0}
	reps := [][]int32{make([]int32, n)}
	for i := range reps[0] {
		reps[0][i] = int32(i)
	}
	for i := 0; i < n; i++ {
		w.brokers = append(w.brokers, NewBroker(BrokerConfig{ID: int32(i), Leaders: leaders, Replicas: reps, Leader: lcfg}))
	}
	w.ctl = controller.NewController(controller.ControllerConfig{}, n, []model.PartitionState{{Partition: 0, Replicas: reps[0], ISR: reps[0], Leader: 0}})
	w.outs(int32(n), w.ctl.Start(0))
	for range w.brokers {
		w.stops = append(w.stops, -1)
	}
	for i, b := range w.brokers {
		w.outs(int32(i), b.Start(0))
	}
	return w
}

func (w *bWorld) at(t sim.Time, f func()) {
	w.seq++
	heap.Push(&w.q, tEvent{at: t, seq: w.seq, run: f})
}

func (w *bWorld) runUntil(t sim.Time) {
	for len(w.q) > 0 && w.q[0].at <= t {
		e := heap.Pop(&w.q).(tEvent)
		w.now = e.at
		e.run()
	}
	w.now = t
}

// step delivers m from node from to node to in 1 ms.
func (w *bWorld) step(from, to int32, m model.Message) {
	w.at(w.now.Add(time.Millisecond), func() {
		n := int32(len(w.brokers))
		switch {
		case to == n:
			w.outs(n, w.ctl.Step(w.now, model.Peer{Node: from}, m))
		case to == n+1:
			w.replies = append(w.replies, m)
		default:
			w.outs(to, w.brokers[to].Step(w.now, model.Peer{Node: from}, m))
		}
	})
}

func (w *bWorld) outs(from int32, outs []model.Out) {
	n := int32(len(w.brokers))
	for _, o := range outs {
		switch o.Kind {
		case model.OutSend:
			to := o.Dest
			if to == model.DestController {
				to = n
			}
			w.step(from, to, o.Msg)
		case model.OutReply:
			w.step(from, o.Peer.Node, o.Msg)
		case model.OutStop:
			w.stops[from] = w.now
		case model.OutWake:
			tok := o.Timer
			w.at(o.At, func() {
				if from == n {
					w.outs(from, w.ctl.Wake(w.now, tok))
				} else {
					w.outs(from, w.brokers[from].Wake(w.now, tok))
				}
			})
		}
	}
}

func (w *bWorld) produce(to int32, acks int8, seq int32) {
	b := testBatch(0, 7, 0, seq, seq, false, w.now)
	w.step(int32(len(w.brokers))+1, to, &model.ProduceRequest{CorrelationID: int64(seq) + 1, Acks: acks, Batches: []model.Batch{b}})
}

func (w *bWorld) reply(i int) *model.ProduceResponse {
	w.t.Helper()
	if i >= len(w.replies) {
		w.t.Fatalf("no reply %d (have %d)", i, len(w.replies))
	}
	return w.replies[i].(*model.ProduceResponse)
}

// TestBrokerAcks: acks=1 is answered when the leader appended, acks=all
// once both followers fetched the batch (a fetch round later), acks=0 not
// at all; a follower answers NOT_LEADER_OR_FOLLOWER; every replica ends
// with the batches and the producer's state.
func TestBrokerAcks(t *testing.T) {
	w := newBWorld(t, 3, LeaderConfig{})
	w.runUntil(ms(100))
	w.produce(0, 1, 0)
	w.runUntil(ms(101))
	if len(w.replies) != 0 {
		t.Fatal("answered before the request arrived")
	}
	w.runUntil(ms(102))
	if r := w.reply(0); r.Partitions[0].Err != model.ErrNone || r.Partitions[0].BaseOffset != 0 {
		t.Fatalf("acks=1: %+v", r.Partitions[0])
	}
	w.produce(0, -1, 1)
	w.runUntil(ms(102))
	if len(w.replies) != 1 {
		t.Fatal("acks=all answered before the followers fetched")
	}
	w.runUntil(ms(200))
	if r := w.reply(1); r.Partitions[0].Err != model.ErrNone || r.Partitions[0].BaseOffset != 1 {
		t.Fatalf("acks=all: %+v", r.Partitions[0])
	}
	w.produce(0, 0, 2)
	w.produce(1, 1, 3)
	w.runUntil(ms(300))
	if len(w.replies) != 3 {
		t.Fatalf("%d replies, want 3 (acks=0 gets none)", len(w.replies))
	}
	if r := w.reply(2); r.Partitions[0].Err != model.ErrNotLeaderOrFollower {
		t.Fatalf("a follower answered %v", r.Partitions[0].Err)
	}
	w.runUntil(ms(1000)) // the followers learn the last HW at their next fetch
	for i, b := range w.brokers {
		lg := b.ReplicaLog(0)
		if lg.LogEndOffset() != 3 || lg.HighWatermark() != 3 || b.Partition(0).StateDiff(w.now) != "" {
			t.Fatalf("b%d: LEO %d HW %d state %q", i, lg.LogEndOffset(), lg.HighWatermark(), b.Partition(0).StateDiff(w.now))
		}
	}
}

// TestBrokerMinISR: with min.insync.replicas=2 and the ISR down to the
// leader, acks=all is refused NOT_ENOUGH_REPLICAS before the append, and
// acks=1 is appended.
func TestBrokerMinISR(t *testing.T) {
	w := newBWorld(t, 2, LeaderConfig{MinInsyncReplicas: 2})
	w.runUntil(ms(100))
	w.outs(2, w.brokers[0].Step(w.now, model.Peer{Node: 2}, &model.MetadataUpdate{Offset: 99,
		Partitions: []model.PartitionState{{Partition: 0, Replicas: []int32{0, 1}, ISR: []int32{0}, Leader: 0, PartitionEpoch: 5}}}))
	w.produce(0, -1, 0)
	w.produce(0, 1, 0)
	w.runUntil(ms(110))
	if r := w.reply(0); r.Partitions[0].Err != model.ErrNotEnoughReplicas {
		t.Fatalf("acks=all under min ISR: %v", r.Partitions[0].Err)
	}
	if r := w.reply(1); r.Partitions[0].Err != model.ErrNone {
		t.Fatalf("acks=1 under min ISR: %v", r.Partitions[0].Err)
	}
}

// TestBrokerMetadata: a broker answers Metadata from what it applied, and
// a restarted broker catches up through its heartbeat.
func TestBrokerMetadata(t *testing.T) {
	w := newBWorld(t, 3, LeaderConfig{})
	w.runUntil(ms(10))
	w.brokers[2].Crash()
	w.outs(2, w.brokers[2].Restart(w.now, false))
	w.step(4, 2, &model.MetadataRequest{CorrelationID: 9})
	w.runUntil(ms(12))
	// Before its heartbeat's answer the restarted broker knows no leader.
	if r, ok := w.replies[len(w.replies)-1].(*model.MetadataResponse); !ok || r.Leaders[0] != -1 {
		t.Fatalf("metadata at once after a restart: %+v", w.replies)
	}
	w.runUntil(ms(20))
	w.step(4, 2, &model.MetadataRequest{CorrelationID: 10})
	w.runUntil(ms(30))
	if r, ok := w.replies[len(w.replies)-1].(*model.MetadataResponse); !ok || r.Leaders[0] != 0 {
		t.Fatalf("metadata after the catch-up: %+v", w.replies)
	}
}
