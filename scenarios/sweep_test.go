package scenarios

import (
	"strings"
	"testing"
)

var sweepSeeds = 150

// TestFaultSweep runs many seeds with generated fault plans in both modes
// and both resend settings: no panic, deterministic, and in tcp mode with
// idempotence no safety violation.
func TestFaultSweep(t *testing.T) {
	n := uint64(sweepSeeds)
	if testing.Short() {
		n = 30
	}
	for seed := range n {
		sets := kv("fault.count", "10", "records", "40", "send.interval.ms", "50", "request.timeout.ms", "500",
			"delivery.timeout.ms", "5000", "net.response_loss", "0.02", "net.request_loss", "0.02", "fault.max_duration", "3s")
		tcp := seed%2 == 0
		if !tcp {
			sets = append(sets, kv("net.mode", "datagram", "net.duplicate", "0.05", "net.reorder", "0.05")...)
		}
		resend := seed%3 == 0
		if resend {
			sets = append(sets, kv("fault.producer.resend", "true")...)
		}
		if seed%5 == 0 {
			sets = append(sets, kv("net.disconnect_notice", "1")...)
		}
		if seed%7 == 0 {
			sets = append(sets, kv("partitions", "3", "linger.ms", "30")...)
		}
		r := run(t, Spec{Seed: seed, Sets: sets})
		if r.Sent != r.Acked+r.Failed+r.Pending+r.Abandoned {
			t.Errorf("seed %d: sent %d != acked %d + failed %d + pending %d + abandoned %d", seed, r.Sent, r.Acked, r.Failed, r.Pending, r.Abandoned)
		}
		for _, v := range r.Violations {
			// A restarted producer that sends its records again gets a new
			// producer id, so a record its dead incarnation wrote lands
			// twice (idempotence is per producer session, KIP-98):
			// expected, not a simulator bug.
			if resend && v.Invariant == "INV-DUP" && strings.Contains(r.Plan, " crash p") {
				continue
			}
			if tcp || v.Invariant == "LIVE-PROD" {
				t.Errorf("seed %d (tcp=%v): %s: %s\nplan:\n%s\nrepro: %s -trace", seed, tcp, v.Invariant, v.Detail, r.Plan, r.Reproduce)
			}
		}
	}
}
