package check

import (
	"strconv"
	"strings"
)

// CutCount reports whether v is not a violation but the closing line of a
// cut list ("... and N more", "... and N more duplicate copies", "... and
// N more log-shape violations"), and if so N: how many violations of
// v.Invariant were left out of the list.
func CutCount(v Violation) (n int64, ok bool) {
	rest, ok := strings.CutPrefix(v.Detail, "... and ")
	if !ok {
		return 0, false
	}
	num, tail, ok := strings.Cut(rest, " ")
	if !ok || (tail != "more" && !strings.HasPrefix(tail, "more ")) {
		return 0, false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// SplitCut returns vs without the closing lines of cut lists, and the
// number of violations those lines stood for, in total and by invariant.
func SplitCut(vs []Violation) (kept []Violation, cut int64, by map[string]int64) {
	kept = make([]Violation, 0, len(vs))
	for _, v := range vs {
		if n, ok := CutCount(v); ok {
			if by == nil {
				by = map[string]int64{}
			}
			by[v.Invariant] += n
			cut += n
			continue
		}
		kept = append(kept, v)
	}
	return kept, cut, by
}
