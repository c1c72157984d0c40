package validate

import (
	"context"
	"flag"
	"sync"
	"testing"
	"time"

	"github.com/idemsim/idemsim/internal/validate/proxy"
	"github.com/idemsim/idemsim/scenarios"
)

var probeRuns = flag.Int("probe-runs", 0, "TestInflightProbe: real runs of inflight6 (idempotence off) per client (0: skip)")

// TestInflightProbe counts, through the proxy, the requests in flight
// ahead of each request whose answer is lost and the answers lost with
// it, for inflight6 without idempotence (docs/validate.md, "inflight6
// with librdkafka"). It measures, it does not check a rate: run it with
// -probe-runs N (and -tags librdkafka for librdkafka).
func TestInflightProbe(t *testing.T) {
	if *probeRuns <= 0 {
		t.Skip("measurement: -probe-runs N")
	}
	sc, err := scenarios.Lookup("inflight6")
	if err != nil {
		t.Fatal(err)
	}
	clients := []string{ClientFranzGo, ClientSarama}
	if HasLibrdkafka() {
		clients = append(clients, ClientLibrdkafka)
	}
	for _, cl := range clients {
		var mu sync.Mutex
		var sum proxy.Stats
		proxyStatsHook = func(s proxy.Stats) {
			mu.Lock()
			defer mu.Unlock()
			sum.ResponsesLost += s.ResponsesLost
			sum.LostWith += s.LostWith
			sum.Doomed += s.Doomed
			sum.DoomedInFlight += s.DoomedInFlight
		}
		cfg := Config{Scenario: sc, Client: cl, Runs: *probeRuns, SimRuns: 10, Base: 1, Margin: Margin{Value: 0.05},
			Modes: []bool{false}, Parallel: 1}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		res, err := Validate(ctx, cfg)
		cancel()
		proxyStatsHook = nil
		if err != nil {
			t.Fatal(err)
		}
		var dup, sent int64
		for _, r := range res.Runs {
			if r.Side == "real" {
				dup += r.Counts.Duplicates
				sent += r.Counts.Sent
			}
		}
		n := float64(*probeRuns)
		t.Logf("%s: %d real runs, lost answers %.2f a run, lost with each %.2f, in flight ahead of each doomed request %.2f, duplicates %.3f a record",
			cl, *probeRuns, float64(sum.ResponsesLost)/n, float64(sum.LostWith)/float64(sum.ResponsesLost),
			float64(sum.DoomedInFlight)/float64(sum.Doomed), float64(dup)/float64(sent))
	}
}
