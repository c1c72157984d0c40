package check

import "testing"

// TestEveryInvariantHasMeaning: charts and captions name each invariant
// with its meaning; a new invariant without one fails here.
func TestEveryInvariantHasMeaning(t *testing.T) {
	for _, inv := range Invariants() {
		if Meaning(inv) == "" {
			t.Errorf("%s has no Meaning", inv)
		}
	}
	if Meaning("INV-NONE") != "" {
		t.Error("a name that is not an invariant has a meaning")
	}
}
