package groupapp

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/idemsim/idemsim/internal/leaktest"
)

// TestRunCutInPause: a run whose context ends while an instance's pause
// holds its proxy (as -budget's does) returns soon after, with either
// client. The pause would hold the instance's connections for 30 s
// (600 s at time scale 0.05), the rebalance timeout is 30 s too, and
// the run's deadline is a minute; the cut comes 4.5 s in, after the
// instances joined (kfake answers the group's first join about 3 s
// after it) and began a transaction, so the pause is on. A run that
// waited for the hold's end (the held LeaveGroup or Fetch keeping its
// client's close waiting), or for a member's SyncGroup (kgo sends it on
// the client's context), returned about 30 s after the cut; the bound
// here, 10 s after it, is far from both. TestRealRunCutReturns in
// package validate cuts every real-run path at other times.
func TestRunCutInPause(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs of a few seconds")
	}
	before := runtime.NumGoroutine()
	t.Run("clients", func(t *testing.T) {
		for _, client := range []string{ClientFranzGo, ClientSarama} {
			t.Run(client, func(t *testing.T) {
				t.Parallel() // both wait most of the time
				spec := Spec{Instances: 2, Partitions: 2, Records: 200, PerTxn: 10, Interval: 100 * time.Millisecond,
					SessionTimeout: 10 * time.Second, RebalanceTimeout: 600 * time.Second, TransactionTimeout: 300 * time.Second,
					Pauses: []Pause{{Instance: 0, At: 0, For: 600 * time.Second}},
					Scale:  0.05, Deadline: time.Minute, Seed: 1, Encode: encode, Decode: decode, Client: client}
				const cut, bound = 4500 * time.Millisecond, 10 * time.Second
				ctx, cancel := context.WithTimeout(context.Background(), cut)
				defer cancel()
				start := time.Now()
				c, err := Run(ctx, spec)
				took := time.Since(start)
				t.Logf("returned after %v: %+v, %v", took, c, err)
				if err == nil && c.Finished {
					t.Fatalf("the run finished within %v despite its 30 s pause", cut)
				}
				if took > cut+bound {
					t.Errorf("the run cut after %v returned after %v, more than %v after the cut", cut, took, bound)
				}
			})
		}
	})
	leaktest.Check(t, before, "the cut runs")
}
