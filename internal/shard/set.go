package shard

import (
	"errors"
	"fmt"
)

// Set is the shard directories a merge is given, added one by one: every
// shard i/n of one split, each exactly once. Whether two directories are
// of the same sweep or exploration is the caller's check.
type Set struct {
	first string         // the first directory added
	count int            // its shards' n
	seen  map[int]string // shard index -> its directory
}

// NewSet starts the set of dirs' shards, refusing an empty dirs.
func NewSet(dirs []string) (*Set, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no shard directories")
	}
	return &Set{seen: map[int]string{}}, nil
}

// Add records dir as shard sh (nil: an unsplit run, shard 0/1). The first
// directory added sets the number of shards; a later one of another
// number, or a shard already added, is refused.
func (s *Set) Add(dir string, sh *Shard) error {
	x := Shard{Index: 0, Count: 1}
	if sh != nil {
		x = *sh
	}
	if x.Count < 1 || x.Index < 0 || x.Index >= x.Count {
		return fmt.Errorf("%s claims shard %s, which is not a shard of a split (index 0 to count-1, count at least 1)", dir, x)
	}
	if len(s.seen) == 0 {
		s.first, s.count = dir, x.Count
	}
	if x.Count != s.count {
		return fmt.Errorf("%s is shard %s, but %s is of %d shards", dir, x, s.first, s.count)
	}
	if prev, ok := s.seen[x.Index]; ok {
		return fmt.Errorf("%s and %s are both shard %s", prev, dir, x)
	}
	s.seen[x.Index] = dir
	return nil
}

// Complete reports the shards not added.
func (s *Set) Complete() error {
	if len(s.seen) == s.count {
		return nil
	}
	var missing []int
	for i := range s.count {
		if _, ok := s.seen[i]; !ok {
			missing = append(missing, i)
		}
	}
	return fmt.Errorf("shards %v of %d are missing", missing, s.count)
}

// Count is the number of shards of the split (0 before the first Add).
func (s *Set) Count() int { return s.count }
