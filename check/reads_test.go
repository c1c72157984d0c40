package check

import (
	"reflect"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestReads: a suite that hands each invariant only the kinds it reads
// (Suite.byKind) stays in the same state, observation by observation, as
// one that hands every observation to every invariant (its byKind filled
// with all of them), and gives the same verdicts, on runs in which every
// invariant breaks in some seed (stream_test.go), plain and replicated.
// An invariant that starts reading a kind its reads list lacks fails
// here.
func TestReads(t *testing.T) {
	runs := resetRuns()
	for seed := uint64(20); seed < 60; seed++ {
		cfg := genConfig()
		if seed%4 == 0 {
			cfg.Replicated = true
			runs = append(runs, resetRun{"replicated", cfg, genReplicated(seed, 200, true)})
			continue
		}
		runs = append(runs, resetRun{"faults", cfg, genStream(seed, 300, seed%3 != 0)})
	}
	for i, r := range runs {
		byKind, all := NewSuite(r.cfg), NewSuite(r.cfg)
		for k := range all.byKind {
			all.byKind[k] = all.invs // every observation to every invariant
		}
		// Compare the states after every observation in the first runs
		// (a deep comparison of the whole suite), at the end in the rest.
		every := i < 8
		for j := range r.stream {
			a, b := r.stream[j], r.stream[j]
			byKind.Observe(&a)
			all.Observe(&b)
			if every && !reflect.DeepEqual(invStates(byKind), invStates(all)) {
				t.Fatalf("run %d (%s), observation %d (kind %d): the invariants' states differ with per-kind dispatch", i, r.name, j, r.stream[j].Kind)
			}
		}
		if !reflect.DeepEqual(invStates(byKind), invStates(all)) {
			t.Fatalf("run %d (%s): the invariants' states differ with per-kind dispatch", i, r.name)
		}
		c1, v1 := byKind.Finish()
		c2, v2 := all.Finish()
		if c1 != c2 || !reflect.DeepEqual(v1, v2) {
			t.Fatalf("run %d (%s): per-kind dispatch judges %+v %v, every observation to every invariant %+v %v", i, r.name, c1, v1, c2, v2)
		}
	}
}

// invStates returns the invariants of s, for a deep comparison of their
// states (each holds the suite's log view, compared with it).
func invStates(s *Suite) []invariant { return s.invs }

// TestReadsKnown: every kind an invariant reads is a kind the suite hands
// on (not skipped as unread, not a send).
func TestReadsKnown(t *testing.T) {
	for _, r := range registry {
		for _, k := range r.new().reads() {
			if unread[k] || k == model.ObsSent {
				t.Errorf("%s reads kind %d, which Suite.Observe never hands on", r.name, k)
			}
		}
	}
}
