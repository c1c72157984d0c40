package broker

import (
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestLeaderHintByVersion: after a controlled shutdown moved partition 0
// away from broker 0, broker 0 answers a produce NOT_LEADER_OR_FOLLOWER
// with the new leader and its epoch (KIP-951) when it is 3.7 or later and
// the request is Produce v10 (LeaderHints); a 3.6 broker, or a request
// from an older client, gets no hint.
func TestLeaderHintByVersion(t *testing.T) {
	for _, c := range []struct {
		version   int
		v10, want bool
	}{{0, true, true}, {401, true, true}, {307, true, true}, {306, true, false}, {401, false, false}} {
		w := newBWorld(t, 3, LeaderConfig{Version: c.version})
		w.runUntil(ms(100))
		w.outs(0, w.brokers[0].BeginShutdown(w.now, 0))
		w.runUntil(ms(200))
		st, _ := w.ctl.Partition(0)
		b := testBatch(0, 7, 0, 0, 0, false, w.now)
		w.step(4, 0, &model.ProduceRequest{CorrelationID: 1, Acks: -1, LeaderHints: c.v10, Batches: []model.Batch{b}})
		w.runUntil(ms(300))
		pr := w.reply(0).Partitions[0]
		if pr.Err != model.ErrNotLeaderOrFollower {
			t.Fatalf("version %d: answered %v, want NOT_LEADER_OR_FOLLOWER", c.version, pr.Err)
		}
		if pr.HasCurrentLeader != c.want {
			t.Fatalf("version %d, Produce v10 %v: hint %v, want %v", c.version, c.v10, pr.HasCurrentLeader, c.want)
		}
		if c.want && (pr.CurrentLeader != st.Leader || pr.CurrentLeaderEpoch != st.LeaderEpoch || st.Leader == 0) {
			t.Fatalf("version %d: hint leader %d epoch %d, want the controller's %d at %d", c.version, pr.CurrentLeader, pr.CurrentLeaderEpoch, st.Leader, st.LeaderEpoch)
		}
	}
}

// TestFetchLeaderHintByVersion: after a controlled shutdown moved
// partition 0 away from broker 0, a consumer's Fetch v16 (LeaderHints)
// to broker 0 is answered NOT_LEADER_OR_FOLLOWER with the new leader and
// its epoch, and one to the new leader with the old epoch
// FENCED_LEADER_EPOCH with the same hint, by brokers of 3.7 or later
// (KafkaApis.handleFetchRequest, versionId >= 16); a 3.6 broker, or an
// older Fetch, gets no hint.
func TestFetchLeaderHintByVersion(t *testing.T) {
	for _, c := range []struct {
		version   int
		v16, want bool
	}{{0, true, true}, {401, true, true}, {307, true, true}, {306, true, false}, {401, false, false}} {
		w := newBWorld(t, 3, LeaderConfig{Version: c.version})
		w.runUntil(ms(100))
		w.outs(0, w.brokers[0].BeginShutdown(w.now, 0))
		w.runUntil(ms(200))
		st, _ := w.ctl.Partition(0)
		if st.Leader == 0 || st.LeaderEpoch < 1 {
			t.Fatalf("version %d: partition 0 leader %d epoch %d after the shutdown", c.version, st.Leader, st.LeaderEpoch)
		}
		w.step(4, 0, &model.ConsumerFetchRequest{CorrelationID: 1, Partition: 0, CurrentLeaderEpoch: -1, LeaderHints: c.v16})
		w.step(4, st.Leader, &model.ConsumerFetchRequest{CorrelationID: 2, Partition: 0, CurrentLeaderEpoch: st.LeaderEpoch - 1, LeaderHints: c.v16})
		w.runUntil(ms(300))
		if len(w.replies) != 2 {
			t.Fatalf("version %d: %d replies", c.version, len(w.replies))
		}
		for i, want := range []model.ErrCode{model.ErrNotLeaderOrFollower, model.ErrFencedLeaderEpoch} {
			r := w.replies[i].(*model.ConsumerFetchResponse)
			if r.Err != want {
				t.Fatalf("version %d: fetch %d answered %v, want %v", c.version, i+1, r.Err, want)
			}
			if r.HasCurrentLeader != c.want {
				t.Fatalf("version %d, Fetch v16 %v: %s, hint %v, want %v", c.version, c.v16, r.AppendDescription(nil), r.HasCurrentLeader, c.want)
			}
			if c.want && (r.CurrentLeader != st.Leader || r.CurrentLeaderEpoch != st.LeaderEpoch) {
				t.Fatalf("version %d: hint leader %d epoch %d, want the controller's %d at %d", c.version, r.CurrentLeader, r.CurrentLeaderEpoch, st.Leader, st.LeaderEpoch)
			}
		}
	}
}
