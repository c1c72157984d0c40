package params

// Suggest returns the candidate closest to name by edit distance
// (insertions, deletions, substitutions and swaps of neighbours, each
// 1), when it is close enough to be a likely typo: at most 1 edit for
// names up to 4 characters, 2 up to 10, and 3 beyond; "" when none is.
// Ties go to the earlier candidate, so the answer does not depend on
// map order when candidates come sorted.
func Suggest(name string, candidates []string) string {
	limit := 3
	switch {
	case len(name) <= 4:
		limit = 1
	case len(name) <= 10:
		limit = 2
	}
	best, bestD := "", limit+1
	for _, c := range candidates {
		if d := editDistance(name, c); d < bestD && d > 0 {
			best, bestD = c, d
		}
	}
	return best
}

// DidYouMean returns " (did you mean X?)" for [Suggest]'s answer, or "".
func DidYouMean(name string, candidates []string) string {
	if s := Suggest(name, candidates); s != "" {
		return " (did you mean " + s + "?)"
	}
	return ""
}

// editDistance is the optimal-string-alignment distance between a and b,
// by bytes.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
