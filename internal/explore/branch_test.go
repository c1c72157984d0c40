package explore

import (
	"bytes"
	"testing"
)

// sameBytes returns r's summary.json with what branching adds to the
// memory account left out: the states saved, the largest, and the peak
// that counts it.
func sameBytes(t *testing.T, r *Result) []byte {
	t.Helper()
	c := *r
	c.Memory.Peak, c.Memory.SavedStates, c.Memory.SavedStateBytes = 0, 0, 0
	b, err := c.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// zombieRecords is zombie's records for TestBranchSameResult: 3 in go
// test, the scenario's own with -long.
func zombieRecords() []string {
	if *long {
		return nil
	}
	return []string{"records=3"}
}

// TestBranchSameResult: -explore-branch on gives the summary of
// -explore-branch off (the counts, the states, the pruned schedules, the
// counterexamples with their events, byte for byte), with the states it
// saved added to the memory account, both node and message faults
// branched; with branching, -parallel 1 and 3 give the same bytes, the
// memory account included, with or without a memory bound that stops
// the search.
func TestBranchSameResult(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"ackloss K=2", cfgFor(t, "ackloss", 2, "records=3")},
		{"zombie K=1", cfgFor(t, "zombie", 1, zombieRecords()...)},
		{"reorder datagram K=2", cfgFor(t, "reorder", 2, "records=3", "net.mode=datagram")},
	} {
		c := tc.cfg
		c.All = true
		off := explore(t, c)
		c.Branch = true
		on := explore(t, c)
		if a, b := sameBytes(t, off), sameBytes(t, on); !bytes.Equal(a, b) {
			t.Errorf("%s: branching changes the result\noff %s\non  %s", tc.name, a, b)
		}
		bs := on.Timing.Branch
		if off.Memory.SavedStates != 0 || on.Memory.SavedStates != bs.Saves || bs.Saves == 0 || bs.Branched == 0 || bs.BranchedMsg == 0 || on.Memory.SavedStateBytes <= 0 || on.Memory.Peak < off.Memory.Peak {
			t.Errorf("%s: memory %+v with branching (%+v), %+v without", tc.name, on.Memory, bs, off.Memory)
		}
		t.Logf("%s: %d schedules, %d branched (%d on messages) from %d saved states (the largest %d B), %d replayed", tc.name, on.Schedules, bs.Branched, bs.BranchedMsg, bs.Saves, on.Memory.SavedStateBytes, bs.Replayed)
		if tc.name != "ackloss K=2" {
			continue
		}
		for _, bound := range []int64{0, 96 << 10} {
			c.Memory = bound
			c.Parallel = 1
			r := explore(t, c)
			if (r.Stop == "memory") != (bound > 0) {
				t.Errorf("-explore-memory %d: stop %q", bound, r.Stop)
			}
			one, err := r.JSON()
			if err != nil {
				t.Fatal(err)
			}
			c.Parallel = 3
			three, err := explore(t, c).JSON()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(one, three) {
				t.Errorf("with branching and -explore-memory %d, -parallel 1 and 3 give other summaries\n%s\n%s", bound, one, three)
			}
		}
	}
}
