package broker

import (
	"slices"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
)

// TestLeaderQuietAndShift: a led partition is quiet only with every
// follower's last fetch at the log end, the high watermark there and no
// acks=all wait; after shiftTimes(d) a follower that falls behind leaves
// the ISR replica.lag.time.max.ms after its shifted caught-up time, not
// before, and a parked fetch is answered at its shifted deadline.
func TestLeaderQuietAndShift(t *testing.T) {
	f := newLeaderFixture(t, LeaderConfig{ReplicaLagTimeMax: 4 * time.Second}, 0, 1, 2)
	if f.ls.quiet() {
		t.Fatal("quiet before the followers fetched")
	}
	f.fetch(ms(10), 1, 0)
	f.fetch(ms(10), 2, 0)
	if !f.ls.quiet() {
		t.Fatal("not quiet with both followers at the log end")
	}
	res, _ := f.appendN(ms(20), 3)
	if f.ls.quiet() {
		t.Fatal("quiet with an append not fetched")
	}
	if _, _, err := f.ls.AwaitCommit(ms(20), res.LastOffset+1, time.Minute); err != 0 {
		t.Fatal(err)
	}
	f.fetch(ms(30), 1, 3)
	f.fetch(ms(30), 2, 3)
	f.fetch(ms(40), 1, 3)
	if !f.ls.quiet() {
		t.Fatalf("not quiet after both followers caught up (waits %v)", f.ls.waits)
	}
	// Follower 2's long poll at 40 ms (at the log end) is parked until
	// 540 ms.
	if resp, _ := f.ls.OnFetch(ms(40), model.Peer{Node: 2}, &model.FetchRequest{ReplicaID: 2, FetchOffset: 3,
		LastFetchedEpoch: 0, MaxWaitMs: 500}); resp != nil {
		t.Fatal("a long poll at the log end was answered at once")
	}
	const d = time.Hour
	f.ls.shiftTimes(d)
	if at, ok := f.ls.NextDeadline(); !ok || at != ms(40).Add(d).Add(DefaultReplicaFetchWaitMax) {
		t.Fatalf("parked deadline %v %v, want 540 ms + %v", at, ok, d)
	}
	// Follower 1 stops fetching at 40 ms + d; an append puts it behind,
	// follower 2 fetches it.
	f.appendN(ms(100).Add(d), 1)
	f.fetch(ms(200).Add(d), 2, 4)
	if eff := f.ls.MaybeShrinkISR(ms(4040).Add(d)); eff.Alter != nil {
		t.Fatalf("ISR shrunk at the shifted caught-up time + lag: %+v", eff.Alter)
	}
	if eff := f.ls.MaybeShrinkISR(ms(4041).Add(d)); eff.Alter == nil || !slices.Equal(eff.Alter.NewISR, []int32{0, 2}) {
		t.Fatalf("ISR not shrunk after the shifted caught-up time + lag: %+v", eff.Alter)
	}
}
