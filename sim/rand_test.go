package sim

import "testing"

func TestStreamsIndependent(t *testing.T) {
	// An extra draw on one stream never shifts another stream.
	a1, b1 := NewRand(42, StreamID("net")), NewRand(42, StreamID("producer/p1"))
	a2, b2 := NewRand(42, StreamID("net")), NewRand(42, StreamID("producer/p1"))
	a2.Uint64() // extra draw in the network's stream
	for i := 0; i < 100; i++ {
		if x, y := b1.Uint64(), b2.Uint64(); x != y {
			t.Fatalf("draw %d of producer stream differs after an extra net draw: %x vs %x", i, x, y)
		}
	}
	_ = a1
	// Different seeds and different streams give different sequences.
	if NewRand(42, 1).Uint64() == NewRand(43, 1).Uint64() {
		t.Error("seeds 42 and 43 gave the same first draw")
	}
	if NewRand(42, StreamID("net")).Uint64() == NewRand(42, StreamID("faults")).Uint64() {
		t.Error("streams net and faults gave the same first draw")
	}
}

func TestChance(t *testing.T) {
	r := NewRand(1, 1)
	if Chance(r, 0) {
		t.Fatal("Chance(0) happened")
	}
	if !Chance(r, 1_000_000) {
		t.Fatal("Chance(1e6) did not happen")
	}
	// A zero probability consumes no randomness.
	r1, r2 := NewRand(7, 7), NewRand(7, 7)
	Chance(r1, 0)
	if r1.Uint64() != r2.Uint64() {
		t.Fatal("Chance(0) drew from the stream")
	}
	hits := 0
	for i := 0; i < 100_000; i++ {
		if Chance(r, 250_000) {
			hits++
		}
	}
	// Binomial(1e5, 0.25): sd = 137; allow 5 sd.
	if hits < 25_000-685 || hits > 25_000+685 {
		t.Fatalf("Chance(25%%) hit %d of 100000", hits)
	}
}

// TestRandsAsNewRand: streams from a Rands, fresh or reused after Reset
// (in another order, after draws), draw exactly as NewRand's.
func TestRandsAsNewRand(t *testing.T) {
	var p Rands
	for round := range 3 {
		p.Reset()
		for i := range 4 {
			stream := uint64((i + round) % 4)
			r, want := p.New(uint64(round+1), stream), NewRand(uint64(round+1), stream)
			for k := range 50 {
				if a, b := r.Uint64(), want.Uint64(); a != b {
					t.Fatalf("round %d stream %d draw %d: %d, NewRand %d", round, stream, k, a, b)
				}
			}
		}
	}
	if len(p.rands) != 4 {
		t.Fatalf("%d generators for 4 streams a round", len(p.rands))
	}
}
