package repl

import (
	"slices"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// TestSpan: a span ends Margin before the next event of anything else
// and is carried only from MinSpan on while the run is on, from
// SettleMinSpan on while it settles, and never while Off.
func TestSpan(t *testing.T) {
	now := sim.Time(0).Add(time.Hour)
	for _, tc := range []struct {
		end      time.Duration
		settling bool
		want     time.Duration
	}{
		{MinSpan + Margin, false, MinSpan},
		{MinSpan + Margin - 1, false, 0},
		{MinSpan + Margin - 1, true, MinSpan - 1},
		{SettleMinSpan + Margin, true, SettleMinSpan},
		{SettleMinSpan + Margin - 1, true, 0},
		{0, true, 0},
	} {
		if got := Span(now, now.Add(tc.end), tc.settling); got != tc.want {
			t.Errorf("Span(end now+%v, settling %v) = %v, want %v", tc.end, tc.settling, got, tc.want)
		}
	}
	Off = true
	defer func() { Off = false }()
	if got := Span(now, now.Add(time.Hour), false); got != 0 {
		t.Errorf("Span while Off = %v, want 0", got)
	}
}

func TestMessagesAndReplicas(t *testing.T) {
	for _, m := range []model.Message{&model.FetchRequest{}, &model.FetchResponse{}, &model.BrokerHeartbeatRequest{}, &model.BrokerHeartbeatResponse{}} {
		if !IdleMsg(m) || !IsMsg(m) {
			t.Errorf("%T: IdleMsg %v IsMsg %v, want both", m, IdleMsg(m), IsMsg(m))
		}
	}
	for _, m := range []model.Message{&model.AlterPartitionRequest{}, &model.AlterPartitionResponse{}, &model.MetadataUpdate{}} {
		if IdleMsg(m) || !IsMsg(m) {
			t.Errorf("%T: IdleMsg %v IsMsg %v, want replication traffic that is not idle", m, IdleMsg(m), IsMsg(m))
		}
	}
	if IsMsg(&model.ProduceRequest{}) {
		t.Error("a produce request counts as replication traffic")
	}
	got := Replicas([]int32{0, 1, 2}, 3, 2)
	if want := [][]int32{{0, 1}, {1, 2}, {2, 0}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Replicas = %v, want %v", got, want)
	}
}
