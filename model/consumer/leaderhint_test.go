package consumer

import (
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// TestFetchLeaderHintByVersion: partition 0 moved from b1 to b2 (epoch
// 1), and every Metadata answer is stale (b1, epoch 0) until 2 s. A 3.7
// (or newer) consumer sends Fetch v16, and b1's NOT_LEADER_OR_FOLLOWER
// carries the new leader, as a 3.7 broker's does: the consumer moves the
// partition to b2 at once (a note says so) and reads its records long
// before the metadata is fresh. A 3.6 consumer sends an older Fetch, gets
// no hint, and reads nothing until a Metadata answer names b2.
func TestFetchLeaderHintByVersion(t *testing.T) {
	fresh := ms(2000)
	for _, c := range []struct {
		version int
		hint    bool
	}{{0, true}, {401, true}, {307, true}, {306, false}, {300, false}} {
		w := newCWorld(t, []int32{1}, 2, Config{Partitions: []int32{0}, Leaders: []int32{0}, Reset: ResetEarliest, ClientVersion: c.version})
		mustAppend(t, w.part(1, 0).Append(0, batch(-1, false, 0, 0, 3)))
		var hinted, fetches16, fetches int
		w.answer = func(m model.Message) model.Message {
			switch m := m.(type) {
			case *model.MetadataRequest:
				if w.now < fresh {
					return &model.MetadataResponse{CorrelationID: m.CorrelationID, Leaders: []int32{0}, Epochs: []int32{0}}
				}
				return &model.MetadataResponse{CorrelationID: m.CorrelationID, Leaders: []int32{1}, Epochs: []int32{1}}
			case *model.ListOffsetsRequest:
				return &model.ListOffsetsResponse{CorrelationID: m.CorrelationID, Partition: m.Partition, Offset: 0}
			case *model.ConsumerFetchRequest:
				fetches++
				if m.LeaderHints {
					fetches16++
				}
				if m.CurrentLeaderEpoch >= 1 {
					// Sent to b2 at its epoch: b2 serves it (its own log
					// has no epochs in this unreplicated world).
					fwd := *m
					fwd.CurrentLeaderEpoch = -1
					for _, o := range w.brokers[1].Step(w.now, model.Peer{Node: 99}, &fwd) {
						if o.Kind == model.OutReply {
							return o.Msg
						}
					}
				}
				{
					// With the old epoch, sent to b1: b1's answer (a 3.7
					// broker fills the hint for Fetch v16).
					r := &model.ConsumerFetchResponse{CorrelationID: m.CorrelationID, Partition: m.Partition, FetchOffset: m.FetchOffset,
						Err: model.ErrNotLeaderOrFollower, HighWatermark: -1, LastStableOffset: -1, LogStartOffset: -1, LeaderEpoch: -1}
					if m.LeaderHints {
						r.HasCurrentLeader, r.CurrentLeader, r.CurrentLeaderEpoch = true, 1, 1
						hinted++
					}
					return r
				}
			}
			return nil
		}
		w.start()
		w.runUntil(ms(3000))
		first := sim.Time(-1)
		for _, p := range w.polls {
			if p.N > 0 {
				first = p.At
				break
			}
		}
		if first < 0 || len(w.returned()) != 3 {
			t.Fatalf("version %d: returned %v, first at %v", c.version, w.returned(), first)
		}
		if (fetches16 == fetches) != c.hint || (fetches16 == 0) == c.hint {
			t.Errorf("version %d: %d of %d fetches are v16, want all %v", c.version, fetches16, fetches, c.hint)
		}
		if c.hint && (hinted == 0 || first >= ms(500)) {
			t.Errorf("version %d: %d hints, first record at %v, want one read from b2 within 500 ms", c.version, hinted, first)
		}
		if !c.hint && first < fresh {
			t.Errorf("version %d: first record at %v, before the metadata names b2 (%v)", c.version, first, fresh)
		}
	}
}
