package faults

import (
	"slices"
	"strings"
	"time"
)

// Plan is a run's fault plan: timed actions and the end of the fault
// phase. Until End the plan's actions and the network's random fault
// sources are active; at End every fault source turns off, partitions heal
// and paused or crashed processes resume, and the run must then converge.
//
// Actions run at their times; actions at the same time run in plan order.
type Plan struct {
	Actions []Timed
	// End is when the fault phase ends, >= every action's time (and every
	// pause's end is cut short by it). 0 means "not set": the world picks
	// its default.
	End time.Duration
	// EndLine is the plan-text line of the "end" line End came from, 0
	// if it was not parsed. Equal ignores it.
	EndLine int
}

// Equal reports whether p and q have the same actions, in order, and end.
func (p *Plan) Equal(q *Plan) bool {
	return p.End == q.End && slices.EqualFunc(p.Actions, q.Actions, Timed.Equal)
}

// String returns the plan's text: one action per line, then "end DUR"
// when End is set. [Parse] reads it back.
func (p *Plan) String() string { return string(p.AppendText(nil)) }

// AppendText appends the plan's text ([Plan.String]) to b.
func (p *Plan) AppendText(b []byte) []byte {
	for i := range p.Actions {
		a := &p.Actions[i]
		b = append(b, a.At.String()...)
		b = append(b, ' ')
		b = a.AppendTo(b)
		b = append(b, '\n')
	}
	if p.End != 0 {
		b = append(b, "end "...)
		b = append(b, p.End.String()...)
		b = append(b, '\n')
	}
	return b
}

// FileText returns a plan text as a plan file holds it: the format line
// ([FormatLine]), then the text ([Plan.String]).
func FileText(text string) string { return FormatLine + "\n" + text }

// Check checks the plan against a world's nodes and reports the first
// problem as "line N: ..." (or "action N: ..." for an action that was not
// parsed): what [Plan.CheckNodes] finds, then what [Plan.CheckSequence]
// finds.
func (p *Plan) Check(n Nodes) error {
	if err := p.CheckNodes(n); err != nil {
		return err
	}
	return p.CheckSequence()
}

// CheckNodes checks each action on its own against a world's nodes:
// first, in plan order, an action that names a node the world does not
// have or comes after the plan's end; then, in plan order, what an
// action's own [Action.Check] finds. A script's single actions, which
// act on whatever state the run has reached, are checked by it alone.
func (p *Plan) CheckNodes(n Nodes) error {
	for i := range p.Actions {
		a := &p.Actions[i]
		for _, node := range a.Nodes() {
			if !slices.Contains(n.Clients, node) && !slices.Contains(n.Servers, node) && !slices.Contains(n.Admins, node) {
				names := slices.Concat(n.all(), n.Admins)
				return a.errorf(i, "unknown node %q (known: %s)", node, strings.Join(slices.Sorted(slices.Values(names)), ", "))
			}
		}
		if p.End != 0 && a.At > p.End {
			return a.errorf(i, "action at %v is after the plan's end %v", a.At, p.End)
		}
	}
	for i := range p.Actions {
		a := &p.Actions[i]
		if err := a.Check(n); err != nil {
			return a.errorf(i, "%v", err)
		}
	}
	return nil
}

// SortByTime orders the plan's actions by time; actions at the same time
// keep their order.
func (p *Plan) SortByTime() {
	slices.SortStableFunc(p.Actions, func(a, b Timed) int {
		switch {
		case a.At < b.At:
			return -1
		case a.At > b.At:
			return 1
		}
		return 0
	})
}
