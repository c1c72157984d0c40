package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is shard Index of Count (0 <= Index < Count); Count 0 or 1 is no
// split.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// String returns "i/n".
func (s Shard) String() string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count) }

// Parse parses "i/n" with 0 <= i < n.
func Parse(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("%q is not allowed (allowed: i/n with 0 <= i < n, e.g. 0/4)", s)
	}
	return Shard{Index: i, Count: n}, nil
}
