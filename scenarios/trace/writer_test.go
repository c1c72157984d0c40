package trace

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
)

var testNames = []string{"p1", "b1"}

// sample returns an observation of kind k with every field a line may show
// set, so that each kind's line and hash run on it.
func sample(k model.ObsKind) *model.Obs {
	return &model.Obs{Kind: k, At: 1500, Node: 0, Peer: 1, N: 1, Text: "t1", Fate: "lost", Group: "g",
		Msg: &model.ProduceRequest{}, Batch: model.Batch{Records: []model.Record{{}}}}
}

// TestEveryLineHashed: every kind with a line writes exactly one line and
// one hashed entry, and a writer that only hashes gives the same hash as
// one that keeps the lines (the line is formatted only when asked for).
func TestEveryLineHashed(t *testing.T) {
	kept, plain := New(testNames, nil), New(testNames, nil)
	kept.Keep()
	lines := 0
	for k := range kinds {
		if kinds[k].noLine {
			continue
		}
		o := sample(model.ObsKind(k))
		kept.Observe(o)
		plain.Observe(o)
		lines++
		if n := len(kept.Lines()); n != lines {
			t.Fatalf("kind %d: %d lines after %d observations with a line", k, n, lines)
		}
		if l := kept.Lines()[lines-1]; !strings.HasPrefix(l, "t=0.000001500s ") {
			t.Errorf("kind %d: line %q does not start with its time", k, l)
		}
		if kept.HashString() != plain.HashString() {
			t.Fatalf("kind %d: hash %s keeping lines, %s hashing only", k, kept.HashString(), plain.HashString())
		}
	}
	if plain.Lines() != nil || plain.tr.Len() != int64(lines) {
		t.Fatalf("a writer that only hashes kept %d lines and hashed %d entries, want none and %d", len(plain.Lines()), plain.tr.Len(), lines)
	}
}

// TestNoLine: a kind marked noLine, and a crash that abandons nothing,
// neither hash nor write anything; a kind without an entry panics.
func TestNoLine(t *testing.T) {
	w := New(testNames, nil)
	w.Keep()
	before := w.HashString()
	for _, k := range []model.ObsKind{model.ObsActive, model.ObsStateCheck, model.ObsCrash} {
		o := sample(k)
		o.N = 0
		w.Observe(o)
	}
	if w.HashString() != before || len(w.Lines()) != 0 {
		t.Fatalf("observations without a line changed the hash (%s, was %s) or wrote %q", w.HashString(), before, w.Lines())
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a kind beyond the table did not panic")
		}
	}()
	w.Observe(&model.Obs{Kind: model.ObsKind(len(kinds))})
}

// TestPlanDrop: a planned drop's line names it as the fault plan does,
// with simnet's words for its direction.
func TestPlanDrop(t *testing.T) {
	if dirRequest != simnet.Request.String() || dirResponse != simnet.Response.String() {
		t.Fatalf("directions %q and %q, simnet says %q and %q", dirRequest, dirResponse, simnet.Request, simnet.Response)
	}
	w := New(testNames, nil)
	w.Keep()
	o := sample(model.ObsSent)
	o.Node, o.Peer, o.Forced, o.Flag, o.N, o.ConnGen = 1, 0, true, true, 3, 2
	w.Observe(o)
	if l := w.Lines()[0]; !strings.HasSuffix(l, " -> p1 DROPPED lost (plan: response 3 p1>b1#2)") {
		t.Errorf("planned drop of a response: %q", l)
	}
}

// TestNewReuses: New over a used writer returns it, hashing only, with
// the hash of a fresh writer and the new names.
func TestNewReuses(t *testing.T) {
	old := New(testNames, nil)
	old.Keep()
	old.Observe(sample(model.ObsRestart))
	fresh := New([]string{"c1"}, nil)
	reused := New([]string{"c1"}, old)
	if reused != old || reused.Lines() != nil || reused.tr.Formats() || reused.HashString() != fresh.HashString() {
		t.Fatalf("reused writer: same %v, lines %q, formats %v, hash %s (fresh %s)",
			reused == old, reused.Lines(), reused.tr.Formats(), reused.HashString(), fresh.HashString())
	}
	reused.Keep()
	reused.Observe(sample(model.ObsRestart))
	if l := reused.Lines(); len(l) != 1 || l[0] != "t=0.000001500s c1 restarts" {
		t.Errorf("reused writer wrote %q", l)
	}
}
