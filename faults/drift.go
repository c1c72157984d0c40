package faults

import (
	"fmt"
	"strconv"
	"strings"
)

func init() {
	register(kind{verb: "drift", rank: 90, parse: parseDrift, example: "0s drift p1 +200ppm"})
}

// MaxDriftPPM bounds [Drift.PPM]: a clock at most twice as slow, and
// never stopped or running backwards.
const MaxDriftPPM = 1_000_000

// Drift is "drift NODE ±PPMppm": the process's timers run slow (+) or
// fast (-) by PPM parts per million from now on (timers already set keep
// their time).
type Drift struct {
	Node string
	// PPM is the rate error, -MaxDriftPPM < PPM <= MaxDriftPPM.
	PPM int32
}

func (Drift) Verb() string { return "drift" }

func (a Drift) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	b = appendNode(b, a.Node)
	b = append(b, ' ')
	if a.PPM >= 0 {
		b = append(b, '+')
	}
	b = strconv.AppendInt(b, int64(a.PPM), 10)
	return append(b, "ppm"...)
}

func (a Drift) Nodes() []string     { return []string{a.Node} }
func (Drift) Check(Nodes) error     { return nil }
func (a Drift) Apply(t Target)      { t.SetDrift(a.Node, a.PPM) }
func (Drift) Span() Span            { return Instant }
func (Drift) Closes(Action) bool    { return false }
func (a Drift) Equal(b Action) bool { c, ok := b.(Drift); return ok && a == c }

// Weaken makes the drift smaller, down to 0, keeping its sign.
func (a Drift) Weaken() (Knob, bool) {
	neg := a.PPM < 0
	return Knob{Max: int64(max(a.PPM, -a.PPM)), With: func(v int64) Action {
		a.PPM = int32(v)
		if neg {
			a.PPM = -a.PPM
		}
		return a
	}}, true
}

// parseDrift reads "NODE ±Nppm".
func parseDrift(args []string) (Action, error) {
	var a Drift
	if len(args) != 2 {
		return nil, fmt.Errorf("want \"drift NODE ±Nppm\", e.g. 0s drift p1 +200ppm")
	}
	var err error
	if a.Node, err = parseNode(args[0]); err != nil {
		return nil, fmt.Errorf("drift: %v", err)
	}
	s, ok := strings.CutSuffix(args[1], "ppm")
	v, err := strconv.ParseInt(s, 10, 32)
	if !ok || err != nil || v <= -MaxDriftPPM || v > MaxDriftPPM {
		return nil, fmt.Errorf("drift: %q is not allowed (allowed: -999999ppm..+1000000ppm)", args[1])
	}
	a.PPM = int32(v)
	return a, nil
}
