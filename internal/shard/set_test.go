package shard

import "testing"

// TestSet: every shard of one split, each once, in any order, is complete;
// an empty list, another number of shards, a shard twice and a missing
// shard are refused with the directories named.
func TestSet(t *testing.T) {
	if _, err := NewSet(nil); err == nil || err.Error() != "no shard directories" {
		t.Fatalf("NewSet(nil): %v", err)
	}
	dirs := []string{"s2", "s0", "s1"}
	s, err := NewSet(dirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{2, 0, 1} {
		if err := s.Add(dirs[(i+1)%3], &Shard{Index: i, Count: 3}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Complete(); err != nil || s.Count() != 3 {
		t.Fatalf("Complete: %v, Count %d", err, s.Count())
	}

	// An unsplit run is shard 0/1 on its own.
	s, _ = NewSet([]string{"one"})
	if err := s.Add("one", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(); err != nil || s.Count() != 1 {
		t.Fatalf("unsplit: %v, Count %d", err, s.Count())
	}

	for _, c := range []struct {
		name   string
		shards []*Shard
		add    string // the error of the last Add
		done   string // else, Complete's
	}{
		{"other count", []*Shard{{0, 2}, {1, 3}}, "d1 is shard 1/3, but d0 is of 2 shards", ""},
		{"unsplit after split", []*Shard{{0, 2}, nil}, "d1 is shard 0/1, but d0 is of 2 shards", ""},
		{"twice", []*Shard{{1, 3}, {0, 3}, {1, 3}}, "d0 and d2 are both shard 1/3", ""},
		{"missing", []*Shard{{1, 4}, {3, 4}}, "", "shards [0 2] of 4 are missing"},
	} {
		var dirs []string
		for i := range c.shards {
			dirs = append(dirs, "d"+string(rune('0'+i)))
		}
		s, err := NewSet(dirs)
		if err != nil {
			t.Fatal(err)
		}
		var last error
		for i, sh := range c.shards {
			last = s.Add(dirs[i], sh)
			if last != nil && i < len(c.shards)-1 {
				t.Fatalf("%s: Add %s: %v", c.name, dirs[i], last)
			}
		}
		if c.add != "" {
			if last == nil || last.Error() != c.add {
				t.Errorf("%s: Add: %v, want %s", c.name, last, c.add)
			}
			continue
		}
		if last != nil {
			t.Fatalf("%s: Add: %v", c.name, last)
		}
		if err := s.Complete(); err == nil || err.Error() != c.done {
			t.Errorf("%s: Complete: %v, want %s", c.name, err, c.done)
		}
	}
}
