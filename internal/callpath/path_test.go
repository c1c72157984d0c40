package callpath

import (
	"slices"
	"strings"
	"testing"
)

// events reads a compact script of events: "E file func", "X",
// "M file func what", separated by semicolons.
func events(t *testing.T, script string) []Event {
	t.Helper()
	var text strings.Builder
	for _, s := range strings.Split(script, ";") {
		text.WriteString(strings.Join(strings.Fields(s), "\t") + "\n")
	}
	ev, other, err := ParseEvents(strings.NewReader(text.String()))
	if err != nil || len(other) != 0 {
		t.Fatalf("%v, other lines %q", err, other)
	}
	return ev
}

// A run: the loop (l.go) hands an event to the world (w.go), whose send
// calls a helper in the same file and the producer (p.go), which calls
// back a closure of w.go; the loop then hands the next event to the
// world, whose outcome is marked after the readers (r.go) have seen an
// observation.
const script = `E l.go Loop.Run; E w.go World.Handle; X; E w.go World.Handle; E w.go World.appSend;
	E w.go World.helper; X; E p.go Producer.Send; E w.go World.appSend.func1; X; X; X; X;
	E w.go World.Handle; E w.go World.fire; E r.go Reader.Observe; E s.go hash; X; X; X;
	M w.go World.Handle ObsOutcome; X; X`

// TestWindow counts the transitions between the entry of World.appSend
// and the outcome's mark: into p.go, back into w.go (the closure), p.go
// (its return), w.go (Producer.Send's return), l.go (appSend's and
// Handle's returns), w.go (the next Handle), r.go, s.go, r.go, w.go (the
// readers and fire's return).
func TestWindow(t *testing.T) {
	p, err := Window(events(t, script), "World.appSend", "ObsOutcome")
	if err != nil {
		t.Fatal(err)
	}
	if p.Transitions != 10 {
		t.Errorf("%d transitions, want 10:\n%s", p.Transitions, p)
	}
	if want := []string{"l.go", "p.go", "r.go", "s.go", "w.go"}; !slices.Equal(p.Files, want) {
		t.Errorf("files %v, want %v", p.Files, want)
	}
	want := []FileCount{{"w.go", 4}, {"p.go", 2}, {"r.go", 2}, {"l.go", 1}, {"s.go", 1}}
	if got := p.ByEntries(); !slices.Equal(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	segs := p.Segments()
	if len(segs) != p.Transitions+1 {
		t.Errorf("%d segments for %d transitions", len(segs), p.Transitions)
	}
	if g := segs[0]; g.File != "w.go" || !slices.Equal(g.Funcs, []string{"World.appSend", "World.helper", "World.appSend"}) {
		t.Errorf("first segment %+v", g)
	}
	if last := p.Steps[len(p.Steps)-1]; last.Mark != "ObsOutcome" || last.Func != "World.Handle" {
		t.Errorf("last step %+v, want the mark", last)
	}
	// Without the readers: fire stays, what it calls goes.
	core, err := Window(events(t, script), "World.appSend", "ObsOutcome", "World.fire")
	if err != nil {
		t.Fatal(err)
	}
	if core.Transitions != 6 || slices.Contains(core.Files, "r.go") || slices.Contains(core.Files, "s.go") {
		t.Errorf("without the readers: %d transitions (want 6), files %v:\n%s", core.Transitions, core.Files, core)
	}
}

// TestWindowErrors: a window that does not open or close, and events
// that do not nest, are errors, not counts.
func TestWindowErrors(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		{"E w.go World.Handle; X", "0 entries of World.appSend recorded, not 1"},
		{"E w.go World.Handle; M w.go World.Handle ObsOutcome; X; E w.go World.appSend; X", "mark 1 of ObsOutcome comes before entry 1"},
		{"E w.go World.appSend; X", "0 marks of ObsOutcome recorded, not 1"},
		{"E w.go World.appSend; X; X", "a return with no function entered"},
		{"E w.go World.appSend; M w.go World.other ObsOutcome", "the function entered last is not that one"},
	} {
		_, err := Window(events(t, c.script), "World.appSend", "ObsOutcome")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one with %q", c.script, err, c.want)
		}
	}
	if _, err := WindowN(nil, 0, "World.appSend", "ObsOutcome"); err == nil {
		t.Error("window 0 opened")
	}
	if _, _, err := ParseEvents(strings.NewReader("E\tonly-a-file\n")); err == nil {
		t.Error("a malformed event line parsed")
	}
}

// TestWindowN: the second window opens at the second entry and closes at
// the second mark; the first record's mark inside it does not close it.
func TestWindowN(t *testing.T) {
	const two = `E w.go World.appSend; E p.go Producer.Send; X; X;
		E w.go World.appSend; E p.go Producer.Send; X; X;
		E w.go World.Handle; M w.go World.Handle ObsOutcome; X;
		E w.go World.Handle; E b.go Broker.Step; X; M w.go World.Handle ObsOutcome; X`
	p, err := WindowN(events(t, two), 2, "World.appSend", "ObsOutcome")
	if err != nil {
		t.Fatal(err)
	}
	// appSend, p.go, back in appSend, out (outside), Handle, the first
	// mark, out, Handle, b.go, back, the second mark: 8 changes of file.
	if p.Transitions != 8 || len(p.Steps) != 11 {
		t.Errorf("%d transitions over %d steps, want 8 over 11:\n%s", p.Transitions, len(p.Steps), p)
	}
	if _, err := WindowN(events(t, two), 3, "World.appSend", "ObsOutcome"); err == nil || !strings.Contains(err.Error(), "2 entries") {
		t.Errorf("window 3 of 2: error %v", err)
	}
}
