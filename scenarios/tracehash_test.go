package scenarios

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestTraceHashWithoutFormatting: a run that formats its trace (-trace,
// kept lines) and one that only hashes give the same tagged hash, for
// every catalogue scenario in both modes.
func TestTraceHashWithoutFormatting(t *testing.T) {
	for _, sc := range All() {
		for _, on := range []bool{false, true} {
			spec := Spec{Scenario: sc, Seed: 3, Sets: idem(on)}
			plain, err := Run(spec)
			if err != nil {
				t.Fatal(err)
			}
			spec.KeepTrace = true
			kept, err := Run(spec)
			if err != nil {
				t.Fatal(err)
			}
			if plain.TraceHash != kept.TraceHash {
				t.Errorf("%s idempotence=%v: hash %s hashing only, %s formatting", sc.Name, on, plain.TraceHash, kept.TraceHash)
			}
			if !strings.HasPrefix(plain.TraceHash, TraceHashScheme+":") {
				t.Errorf("%s: hash %q has no scheme tag", sc.Name, plain.TraceHash)
			}
			if len(kept.Trace) == 0 || plain.Trace != nil {
				t.Errorf("%s: %d lines kept, %d lines without KeepTrace", sc.Name, len(kept.Trace), len(plain.Trace))
			}
		}
	}
}

// TestHashCoversTraceLines: every observation kind that has a trace line
// has a case in the hash (hashObs), so a kind added with a line and no
// hash case fails here rather than panicking in some run.
func TestHashCoversTraceLines(t *testing.T) {
	tw := newTraceWriter([]string{"p1", "b1"}, nil)
	tw.Keep()
	lines := 0
	for k := range 256 {
		o := &model.Obs{Kind: model.ObsKind(k), Node: 0, Peer: 1, N: 1, Msg: &model.ProduceRequest{}}
		formats := !panics(func() { tw.format(o) })
		hashes := !panics(func() { tw.hashObs(o) })
		if formats {
			lines++
		}
		if formats && !hashes {
			t.Errorf("observation kind %d has a trace line but no hash case in hashObs", k)
		}
	}
	if lines < 20 {
		t.Fatalf("only %d kinds format: the test builds observations wrong", lines)
	}
}

func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}
