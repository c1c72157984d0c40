package faults

import (
	"fmt"
	"time"
)

// CheckLimit refuses a plan whose action or end comes after limit, the
// run's time limit, which the world computes from the run's
// configuration; why says what makes up the limit, for the error. The
// error names the first such line: "line N: time ... is after the run's
// time limit ... (allowed: up to ...: why)".
func (p *Plan) CheckLimit(limit time.Duration, why string) error {
	for i := range p.Actions {
		if a := &p.Actions[i]; a.At > limit {
			return a.errorf(i, "time %v is after the run's time limit %v (allowed: up to %v: %s)", a.At, limit, limit, why)
		}
	}
	if p.End > limit {
		where := ""
		if p.EndLine > 0 {
			where = fmt.Sprintf("line %d: ", p.EndLine)
		}
		return fmt.Errorf("%send %v is after the run's time limit %v (allowed: up to %v: %s)", where, p.End, limit, limit, why)
	}
	return nil
}
