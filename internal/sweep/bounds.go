package sweep

// boundNote explains [boundMark]'s mark under a table.
const boundNote = "An interval marked * had no spread between runs (every run gave the same value, 0 or 1 included), so it is the Wilson score interval over runs (rates) or the exact Poisson interval of the total count (per-run means), not a zero-width one"

// boundMark marks an interval made where the runs showed no spread
// (Rate.Method "wilson-runs", Mean.Method "poisson").
func boundMark(method string) string {
	if method == "wilson-runs" || method == "poisson" {
		return "*"
	}
	return ""
}

// hasBounds reports whether any interval in the summary is marked by
// [boundMark].
func (s *Summary) hasBounds() bool {
	for _, pt := range s.Points {
		for _, st := range pt.Modes {
			if boundMark(st.ZombieWritesPerRun.Method) != "" {
				return true
			}
			for _, r := range st.Rates {
				if boundMark(r.Method) != "" {
					return true
				}
			}
		}
	}
	return false
}
