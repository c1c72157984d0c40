package scenarios

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/check"
)

// TestRetentionOutcomes: in `retention` the producer's batches are all
// deleted (the log start moves past them, the tally counts them deleted
// and INV-LOSS holds) before its pending retry arrives. Within
// producer.id.expiration.ms the retry is answered as a duplicate from the
// kept state (KIP-360) and no invariant fails; past it the retry is
// appended again (INV-DUP). Both at kafka.version 3.0 and 4.1, whose
// brokers accept an unknown producer at any sequence and never answer
// UNKNOWN_PRODUCER_ID (docs/operations.md), so neither client sees an
// error or bumps its epoch. Seeds 1-200 (800 runs, under a second).
func TestRetentionOutcomes(t *testing.T) {
	sc, err := Lookup("retention")
	if err != nil {
		t.Fatal(err)
	}
	const seeds = 200
	for _, version := range []string{"3.0", "4.1"} {
		for _, c := range []struct {
			expiration string
			dup        bool
		}{{"60000", false}, {"10000", true}} {
			for seed := uint64(1); seed <= seeds; seed++ {
				r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: kv("kafka.version", version, "producer.id.expiration.ms", c.expiration), KeepTrace: true})
				where := "kafka " + version + " producer.id.expiration.ms=" + c.expiration + " seed " + strconv.FormatUint(seed, 10) + "\nreproduce: " + r.Reproduce
				var moved, dedup bool
				for _, l := range r.Trace {
					moved = moved || strings.Contains(l, " log start p0 0 -> 10 (retention.ms)")
					dedup = dedup || strings.Contains(l, " duplicate p0 pid=") && strings.Contains(l, "seq=9..9")
				}
				if !moved || r.Deleted < 10 {
					t.Fatalf("%s: retention did not delete the producer's first 10 batches before the retry (deleted %d)", where, r.Deleted)
				}
				names := violationNames(r.Violations)
				if slices.Contains(names, check.InvLoss) || r.LostAcked != 0 {
					t.Fatalf("%s: deleted records judged lost: %v", where, r.Violations)
				}
				if got := r.Duplicates > 0; got != c.dup || dedup == c.dup || slices.Contains(names, check.InvDup) != c.dup {
					t.Fatalf("%s: duplicates %d, deduplicated retry %v, violations %v; want a duplicate %v", where, r.Duplicates, dedup, names, c.dup)
				}
				if !c.dup && len(names) > 0 {
					t.Fatalf("%s: violations %v within producer.id.expiration.ms", where, names)
				}
				if r.Errors["UNKNOWN_PRODUCER_ID"] != 0 || r.ClientEpochBumps != 0 {
					t.Fatalf("%s: errors %v, epoch bumps %d: no covered broker answers UNKNOWN_PRODUCER_ID", where, r.Errors, r.ClientEpochBumps)
				}
			}
		}
	}
}

func violationNames(vs []check.Violation) []string {
	var out []string
	for _, v := range vs {
		if !slices.Contains(out, v.Invariant) {
			out = append(out, v.Invariant)
		}
	}
	return out
}

// TestConsumerResetsPastLogStart: in lsolag the read_committed consumer
// waits at offset 11 behind the open transaction when a DeleteRecords
// moves the log start to 12: its next fetch is OFFSET_OUT_OF_RANGE, and
// auto.offset.reset=earliest resets it to the log start (ListOffsets
// EARLIEST), from where it reads on; no invariant fails.
func TestConsumerResetsPastLogStart(t *testing.T) {
	sc, err := Lookup("lsolag")
	if err != nil {
		t.Fatal(err)
	}
	plan := "1.05s pause p1 8s\n2s delete-records b1 partition 0 before 12\n"
	for _, c := range []struct {
		reset string
		want  []string
	}{
		{"earliest", []string{" b1 log start p0 0 -> 12 (delete-records)", " r1 recv CFetchResp#9 p0 OFFSET_OUT_OF_RANGE",
			" r1 resets p0 position 11 -> -1 (out of range)", " r1 resets p0 position -1 -> 12 (earliest)"}},
	} {
		r := mustRun(t, Spec{Scenario: sc, Seed: 1, Sets: kv("enable.idempotence", "true", "auto.offset.reset", c.reset), PlanText: plan, KeepTrace: true})
		i := 0
		for _, l := range r.Trace {
			if i < len(c.want) && strings.Contains(l, c.want[i]) {
				i++
			}
		}
		if i < len(c.want) {
			t.Errorf("auto.offset.reset=%s: no trace line %q in order\nreproduce: %s", c.reset, c.want[i], r.Reproduce)
		}
		if c.reset == "earliest" && (len(r.Violations) > 0 || r.Deleted != 11) {
			t.Errorf("auto.offset.reset=earliest: violations %v, deleted %d (want none, 11)", r.Violations, r.Deleted)
		}
	}
}
