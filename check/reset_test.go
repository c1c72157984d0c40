package check

import (
	"reflect"
	"testing"

	"github.com/idemsim/idemsim/internal/fieldcmp"
	"github.com/idemsim/idemsim/model"
)

// resetRun is one recorded run: its configuration and its observations.
type resetRun struct {
	name   string
	cfg    Config
	stream []model.Obs
}

// resetRuns are runs unlike each other (stream_test.go): broken ones
// (duplicates, losses, torn and mixed transactions, fencing, stale
// EndTxns, hanging transactions), a clean one, replicated ones, one with
// another configuration, and an empty one.
func resetRuns() []resetRun {
	cfg := genConfig()
	other := Config{Seq: model.SeqSpace{}, Names: []string{"q1", "q2"}} // MaxEpoch 0: 32767
	repl := genConfig()
	repl.Replicated = true
	return []resetRun{
		{"faults", cfg, genStream(11, 400, true)},
		{"clean", cfg, genStream(12, 300, false)},
		{"replicated-faults", repl, genReplicated(13, 250, true)},
		{"other-config", other, genStream(14, 200, true)},
		{"replicated-clean", repl, genReplicated(15, 150, false)},
		{"faults-short", cfg, genStream(16, 60, true)},
		{"empty", cfg, []model.Obs{{Kind: model.ObsRunEnd, At: 5, Text: "drained"}}},
	}
}

// verdict is what a suite said of a run.
type verdict struct {
	c  Counts
	vs []Violation
}

// feed observes stream through one Obs value, scribbled over after each
// observation as the world reuses it, and judges the run.
func feed(s *Suite, stream []model.Obs) verdict {
	var o model.Obs
	for i := range stream {
		o = stream[i]
		s.Observe(&o)
		o = model.Obs{Kind: model.ObsMetadataFlap, At: -1, Node: 999, Partition: 999, PID: 999, Text: "scribbled",
			Batch: model.Batch{Partition: 999, PID: 999, Records: []model.Record{{}}}, Result: model.AppendResult{FirstOffset: 999}}
	}
	c, vs := s.Finish()
	return verdict{c, vs}
}

// TestResetLeaksNothing: runs judged by one suite, Reset between them, in
// several orders (each run also right after itself), get the verdicts
// fresh suites give them, counts and violations alike; and the verdicts
// an earlier Finish returned are not changed by the runs after it.
func TestResetLeaksNothing(t *testing.T) {
	runs := resetRuns()
	want := make([]verdict, len(runs))
	for i, r := range runs {
		want[i] = feed(NewSuite(r.cfg), r.stream)
		if r.name != "clean" && r.name != "replicated-clean" && r.name != "empty" && len(want[i].vs) < 5 {
			t.Fatalf("run %s breaks too little to tell a leak: %v", r.name, want[i].vs)
		}
	}
	n := len(runs)
	var orders [][]int
	fwd, rev, twice := []int{}, []int{}, []int{}
	for i := range n {
		fwd, rev = append(fwd, i), append(rev, n-1-i)
		twice = append(twice, i, i)
	}
	orders = append(orders, fwd, rev, twice, []int{2, 0, 4, 6, 1, 3, 5, 0, 2})
	for _, order := range orders {
		s := NewSuite(runs[order[0]].cfg)
		var got []verdict
		for k, i := range order {
			if k > 0 {
				s.Reset(runs[i].cfg)
			}
			got = append(got, feed(s, runs[i].stream))
		}
		for k, i := range order {
			if !reflect.DeepEqual(got[k], want[i]) {
				t.Errorf("order %v: run %s (position %d) after Reset:\ngot  %+v\nwant %+v", order, runs[i].name, k, got[k], want[i])
			}
		}
	}
}

// TestResetFieldByField: a suite that judged runs, Reset, equals a new
// suite field by field, through every checker and the log view, with nil
// and empty slices told apart (the world's state hash tells them apart:
// a reset suite must hash as a new one). A field added to a checker
// without its reset fails here.
func TestResetFieldByField(t *testing.T) {
	runs := resetRuns()
	for _, cfg := range []Config{runs[0].cfg, runs[2].cfg, runs[3].cfg} {
		s := NewSuite(runs[2].cfg)
		for _, r := range runs {
			s.Reset(r.cfg)
			feed(s, r.stream)
		}
		if d := fieldcmp.Diff(reflect.ValueOf(s).Elem(), reflect.ValueOf(NewSuite(cfg)).Elem(), "Suite", nil); d == "" {
			t.Fatal("a used suite equals a new one: the runs set nothing")
		}
		s.Reset(cfg)
		if d := fieldcmp.Diff(reflect.ValueOf(s).Elem(), reflect.ValueOf(NewSuite(cfg)).Elem(), "Suite", nil); d != "" {
			t.Errorf("Reset(%+v) leaves %s", cfg, d)
		}
	}
}

// TestResetAllocs: once a suite has judged a run, judging it again after
// Reset allocates little: nothing per observation, only what reports
// cost (violation texts, the returned list).
func TestResetAllocs(t *testing.T) {
	run := genStream(21, 300, false)
	s := NewSuite(genConfig())
	feed(s, run)
	n := testing.AllocsPerRun(5, func() {
		s.Reset(genConfig())
		for i := range run {
			s.Observe(&run[i])
		}
		s.Finish()
	})
	if n > 1 {
		t.Errorf("%v allocations per reset clean run of %d observations", n, len(run))
	}
}
