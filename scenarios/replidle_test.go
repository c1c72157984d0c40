package scenarios

import (
	"slices"
	"testing"

	"github.com/idemsim/idemsim/scenarios/world"
)

// TestIdleReplicationCost: a replicated world that waits for a request
// timeout of days costs a handful of events per simulated day, not the
// ~22 per second of its followers' empty long polls and its brokers'
// heartbeats (issue #30): both runs of the issue get to their end within
// a million events, where cycle by cycle they stopped at the event limit
// (50,000,000 events by about 2,300,000 s).
func TestIdleReplicationCost(t *testing.T) {
	for _, tc := range []struct {
		name string
		seed uint64
		sets []string
	}{
		{"unclean", 16084403231519054455, []string{"producer.id.expiration.ms", "5768521338", "request.timeout.ms", "867517774"}},
		{"isolated", 1, []string{"request.timeout.ms", "2147483647"}},
	} {
		sc, err := Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		r := mustRun(t, Spec{Scenario: sc, Seed: tc.seed, MaxEvents: 1_000_000, Sets: kv(tc.sets...)})
		perSec := float64(r.Events) / (float64(r.SimTimeNs) / 1e9)
		if r.Stop == "event-limit" || perSec > 0.01 {
			t.Errorf("%s seed %d: stopped %s after %d events in %.0f s simulated (%.4f events per second)", tc.name, tc.seed, r.Stop, r.Events, float64(r.SimTimeNs)/1e9, perSec)
		}
	}
}

// TestIdleReplicationKeepsRuns: carrying idle replication in one step
// changes nothing but the event count in runs whose idle spans are short
// (the catalogue's: the settling after the run, and spans under a minute,
// which run cycle by cycle): the same trace, end, stop and verdicts as
// cycle by cycle, in fewer events.
func TestIdleReplicationKeepsRuns(t *testing.T) {
	type key struct {
		hash, stop string
		end        int64
		vs         []string
	}
	run := func(name string, seed uint64, sets []string) (key, int64) {
		sc, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: kv(sets...)})
		k := key{hash: r.TraceHash, stop: r.Stop, end: r.SimTimeNs}
		for _, v := range r.Violations {
			k.vs = append(k.vs, v.Invariant+" "+v.Detail)
		}
		return k, r.Events
	}
	fewer := 0
	for _, tc := range []struct {
		name string
		sets []string
	}{
		{"failover", nil}, {"unclean", nil}, {"isolated", []string{"acks", "1"}}, {"acks1", nil},
		{"expiry", []string{"brokers", "3"}}, {"zombie", []string{"brokers", "3"}},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			world.SetIdleReplicationSkip(false)
			want, cycles := run(tc.name, seed, tc.sets)
			world.SetIdleReplicationSkip(true)
			got, events := run(tc.name, seed, tc.sets)
			if got.hash != want.hash || got.stop != want.stop || got.end != want.end || !slices.Equal(got.vs, want.vs) {
				t.Errorf("%s seed %d: carried in one step %+v, cycle by cycle %+v", tc.name, seed, got, want)
			}
			if events > cycles {
				t.Errorf("%s seed %d: %d events carried in one step, %d cycle by cycle", tc.name, seed, events, cycles)
			}
			if events < cycles {
				fewer++
			}
		}
	}
	if fewer == 0 {
		t.Error("no run got cheaper")
	}
}

// TestIdleReplicationNotWhenLossy: with a loss rate between servers a
// fetch or heartbeat may be lost in any cycle (and a broker fenced), so
// the replication runs cycle by cycle however long the wait: the same
// run as TestIdleReplicationCost's isolated one stops at the event limit.
func TestIdleReplicationNotWhenLossy(t *testing.T) {
	sc, err := Lookup("isolated")
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, Spec{Scenario: sc, Seed: 1, MaxEvents: 100_000, Sets: kv("request.timeout.ms", "2147483647", "net.server_loss", "0.0001")})
	if r.Stop != "event-limit" {
		t.Errorf("stopped %s after %d events in %.0f s simulated, want event-limit", r.Stop, r.Events, float64(r.SimTimeNs)/1e9)
	}
}
