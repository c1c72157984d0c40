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
