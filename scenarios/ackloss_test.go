package scenarios

import (
	"math"
	"testing"
)

// TestAcklossSeeds runs 1,000 seeds of ackloss in both modes.
//
// With idempotence on, no run may duplicate, reorder or lose a record.
// With idempotence off, a run duplicates exactly when one of its responses
// was lost (request loss is 0, so every lost response belonged to an
// appended batch, whose retry lands again), and the network loses
// responses at the configured rate: the observed fraction lies within 4.5
// standard deviations of the binomial expectation.
func TestAcklossSeeds(t *testing.T) {
	sc, _ := Lookup("ackloss")
	n := uint64(1000)
	if testing.Short() {
		n = 200
	}
	q := sc.Values().Float("net.response_loss")
	var sent, lost, dupRuns, lossRuns int64
	for seed := uint64(0); seed < n; seed++ {
		on := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: idem(true)})
		if on.Duplicates != 0 || on.Reordered != 0 || on.LostAcked != 0 || len(on.Violations) != 0 {
			t.Fatalf("idempotence on, seed %d: dup=%d reordered=%d lost=%d violations=%v\nreproduce: %s",
				seed, on.Duplicates, on.Reordered, on.LostAcked, on.Violations, on.Reproduce)
		}
		if on.Acked != on.Sent {
			t.Fatalf("idempotence on, seed %d: acked %d of %d", seed, on.Acked, on.Sent)
		}
		off := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: idem(false)})
		sent += off.Net.ResponsesSent
		lost += off.Net.ResponsesLost
		hasDup := off.Duplicates > 0
		hasLoss := off.Net.ResponsesLost > 0
		if hasDup != hasLoss {
			t.Fatalf("idempotence off, seed %d: duplicates=%d but responses lost=%d\nreproduce: %s",
				seed, off.Duplicates, off.Net.ResponsesLost, off.Reproduce)
		}
		if hasDup {
			dupRuns++
			if off.Duplicates < off.Net.ResponsesLost {
				t.Fatalf("seed %d: %d lost acks but only %d duplicates", seed, off.Net.ResponsesLost, off.Duplicates)
			}
		}
		if hasLoss {
			lossRuns++
		}
	}
	p := float64(lost) / float64(sent)
	sd := math.Sqrt(q * (1 - q) / float64(sent))
	if math.Abs(p-q) > 4.5*sd {
		t.Fatalf("response loss observed %.4f over %d responses, configured %.4f (4.5 sd = %.4f)", p, sent, q, 4.5*sd)
	}
	// Every run sends at least one response per record, so at least
	// 1-(1-q)^records of runs must lose one; allow 4.5 sd of sampling.
	records := float64(sc.Values().Int("records"))
	lo := 1 - math.Pow(1-q, records)
	frac := float64(dupRuns) / float64(n)
	if frac < lo-4.5*math.Sqrt(lo*(1-lo)/float64(n)) {
		t.Fatalf("duplicates in %.3f of runs, expected at least about %.3f", frac, lo)
	}
	t.Logf("idempotence off: duplicates in %d/%d runs (%.3f); responses lost %d/%d = %.4f (configured %.2f)", dupRuns, n, frac, lost, sent, p, q)
}
