package validate

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/idemsim/idemsim/internal/leaktest"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// TestRealRunCutReturns: a real run whose context ends in the middle
// (as -budget's does) returns soon after, whatever the real run path,
// and leaves no goroutine behind. Each cell runs validate's own first
// real run (its RealSpec, with validate's deadline of the run's span
// plus 30 s), cut 700 ms in. The bound, 10 s, is far below the deadline
// and the group applications' rebalance timeout (300 s at time scale
// 0.1: 30 s), which a run that waits for them instead of its context
// would reach. Before the fix the cut runs returned after up to 3 s
// (the group members waited for their join, a kgo client's close for
// its held requests); groupapp's TestRunCutInPause cuts a run in the
// middle of a pause, where they waited 30 s.
func TestRealRunCutReturns(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs cut after a fraction of a second")
	}
	// ackloss's 2,000 records at time scale 1 take 20 s; the others'
	// real runs take a few seconds at their own scales.
	long := []params.KV{{Key: "records", Value: "2000"}}
	cells := []struct {
		scenario, client string
		on               bool
		sets             []params.KV
		scale            float64
	}{
		{"ackloss", ClientFranzGo, true, long, 1},   // kgo producer
		{"ackloss", ClientSarama, false, long, 1},   // sarama AsyncProducer
		{"txntimeout", ClientFranzGo, true, nil, 0}, // kgo transactional producer, its pause a proxy hold
		{"zombie", ClientFranzGo, true, nil, 0},     // two kgo transactional producers
		{"eosv2", ClientFranzGo, true, nil, 0},      // GroupTransactSession
		{"eosv2", ClientSarama, true, nil, 0},       // sarama consumer group
		{"groupid", ClientSarama, true, nil, 0},     // sarama, offsets by group id
	}
	const bound, cut = 10 * time.Second, 700 * time.Millisecond
	// The cells run at once (their runs mostly wait); the goroutines
	// are counted before and after all of them.
	before := runtime.NumGoroutine()
	t.Run("cells", func(t *testing.T) {
		for _, c := range cells {
			t.Run(c.scenario+"/"+c.client, func(t *testing.T) {
				t.Parallel()
				sc, err := scenarios.Lookup(c.scenario)
				if err != nil {
					t.Fatal(err)
				}
				var took time.Duration
				var runErr error
				ran := false
				cfg := Config{Scenario: sc, Runs: 1, SimRuns: 1, Base: 1, Margin: DefaultMargin, Modes: []bool{c.on}, Parallel: 1, Client: c.client, Sets: c.sets, Scale: c.scale,
					realRunner: func(ctx context.Context, spec RealSpec) (Counts, error) {
						ctx, cancel := context.WithTimeout(ctx, cut)
						defer cancel()
						start := time.Now()
						counts, err := RunReal(ctx, spec)
						took, runErr, ran = time.Since(start), err, true
						if spec.Deadline < 30*time.Second {
							t.Errorf("the run's deadline is %v, want validate's span plus 30 s", spec.Deadline)
						}
						return counts, err
					}}
				_, _ = Validate(context.Background(), cfg)
				if !ran {
					t.Fatal("no real run")
				}
				t.Logf("cut after %v: returned after %v (%v)", cut, took, runErr)
				if runErr == nil {
					t.Errorf("cut after %v: the run finished without an error", cut)
				}
				if took > bound {
					t.Errorf("cut after %v: returned after %v, want within %v", cut, took, bound)
				}
			})
		}
	})
	leaktest.Check(t, before, "the cut runs")
}
