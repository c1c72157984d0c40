package check

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// Invariant is one safety or liveness property of a run. It reads the
// observation stream and judges once the run ended.
//
// Observe sees every observation in stream order and must not keep o past
// the call (copy what it needs). Finish is called after the
// [model.ObsRunEnd] observation (a scripted run observes several run ends
// and judges after each), must not change what the invariant has seen,
// and returns the invariant's violations in its own report order (nil
// when it held).
type Invariant interface {
	// Name is the invariant's name, such as [InvDup].
	Name() string
	Observe(o *model.Obs)
	Finish() []Violation
}

// violation builds a Violation at simulated time at.
func violation(name string, at sim.Time, detail string) Violation {
	return Violation{Invariant: name, Detail: detail, AtNs: int64(at)}
}

// maxShape bounds the violations a log-shape invariant (INV-SEQ, INV-DEDUP's
// duplicate answers, INV-FENCE, INV-STATE, INV-EPOCH) keeps; the rest are
// counted in one closing line.
const maxShape = 24

// capped holds a log-shape invariant's first [maxShape] violations and
// counts the others.
type capped struct {
	vs   []Violation
	more int
}

// room reports whether one more violation is kept; when not, it counts it
// (so the caller skips building its detail).
func (c *capped) room() bool {
	if len(c.vs) < maxShape {
		return true
	}
	c.more++
	return false
}

// reset empties c for a new run.
func (c *capped) reset() { c.vs, c.more = truncated(c.vs), 0 }

// add keeps v; call it only after room returned true.
func (c *capped) add(v Violation) { c.vs = append(c.vs, v) }

// report returns the kept violations and, when some were dropped, the
// closing line "... and N more log-shape violations" at end.
func (c *capped) report(name string, end sim.Time) []Violation {
	out := c.vs[:len(c.vs):len(c.vs)]
	if c.more > 0 {
		out = append(out, violation(name, end, fmt.Sprintf("... and %d more log-shape violations", c.more)))
	}
	return out
}

// batchTag describes a batch as the trace does ("p0 pid=1000 e=0 seq=0..4
// n=5 [a0:0..a0:4]").
func batchTag(b *model.Batch) string { return string(b.AppendDescription(nil)) }
