package faults

import (
	"fmt"
	"slices"
	"strings"
)

// CheckSequence checks what the plan's lines do to each other along
// time, and reports the first line that could not happen as written:
//
//   - a line earlier than the line before it (a plan is in time order);
//   - a restart of a process that is running: never crashed, or
//     restarted since its last crash;
//   - a pause, stall, crash or shutdown of a process that is crashed (an
//     earlier crash no restart has ended yet): the world would ignore it;
//   - a heal (heal-oneway) that ends no partition (partition-oneway) of
//     the same sides still in force.
//
// It follows the plan's own crash and restart lines; the end of the
// plan restarts every crashed process and heals every partition. In a
// replicated world the coordinator also goes down with its host broker
// (docs/replication.md); the check does not predict that, and the world
// ignores such an action with a note in the trace.
//
// Heals pair with partitions by their sides as sets (the order of the
// nodes, and for a two-way partition the order of the two sides, do not
// matter); two partitions of the same sides in force at once need two
// heals, the first ending the older.
func (p *Plan) CheckSequence() error {
	crashed := map[string]int{}   // node -> index of the crash in force
	restarted := map[string]int{} // node -> index of its last restart
	var cuts []int                // indexes of the partitions in force, oldest first
	for i := range p.Actions {
		a := &p.Actions[i]
		if i > 0 {
			if b := &p.Actions[i-1]; a.At < b.At {
				return a.errorf(i, "time %v is earlier than %s's %v (allowed: lines in time order, each at or after the one before)", a.At, where(b, i-1), b.At)
			}
		}
		switch x := a.Action.(type) {
		case Restart:
			if _, ok := crashed[x.Node]; !ok {
				since := "never crashed"
				if j, ok := restarted[x.Node]; ok {
					since = "restarted on " + where(&p.Actions[j], j)
				}
				return a.errorf(i, "restart %s: %s is running at %v, %s (allowed: a restart of a process that an earlier line crashed and no line has restarted since)", x.Node, x.Node, a.At, since)
			}
			delete(crashed, x.Node)
			restarted[x.Node] = i
		case Pause, Stall, Crash, Shutdown:
			node := a.Nodes()[0]
			if j, ok := crashed[node]; ok {
				return a.errorf(i, "%s %s: %s is crashed at %v, since %s (allowed: a %s of a running process; restart %s first)", a.Verb(), node, node, a.At, where(&p.Actions[j], j), a.Verb(), node)
			}
			if _, ok := x.(Crash); ok {
				crashed[node] = i
			}
		case Cut, CutOneWay:
			cuts = append(cuts, i)
		case Heal, HealOneWay:
			j := slices.IndexFunc(cuts, func(c int) bool { return a.Closes(p.Actions[c].Action) })
			if j < 0 {
				opener := "partition"
				if _, ok := x.(HealOneWay); ok {
					opener = "partition-oneway"
				}
				sides := strings.TrimPrefix(string(a.AppendTo(nil)), a.Verb()+" ")
				return a.errorf(i, "%s %s: no %s %s is in force at %v (allowed: a %s of an earlier %s of the same sides that no %s has ended yet; in force: %s)",
					a.Verb(), sides, opener, sides, a.At, a.Verb(), opener, a.Verb(), inForce(p, cuts))
			}
			cuts = slices.Delete(cuts, j, j+1)
		}
	}
	return nil
}

// where names an action of a plan as its errors do: "line N", or
// "action N" for an action that was not parsed.
func where(a *Timed, i int) string {
	if a.Line > 0 {
		return fmt.Sprintf("line %d", a.Line)
	}
	return fmt.Sprintf("action %d", i+1)
}

// inForce lists the partitions in force, for an error: "partition p1 |
// b1 (line 2), ..." or "none".
func inForce(p *Plan, cuts []int) string {
	if len(cuts) == 0 {
		return "none"
	}
	var b strings.Builder
	for n, i := range cuts {
		if n > 0 {
			b.WriteString(", ")
		}
		a := &p.Actions[i]
		b.Write(a.AppendTo(nil))
		b.WriteString(" (" + where(a, i) + ")")
	}
	return b.String()
}

// sidesKey returns a partition's or a heal's sides as sets, in a form
// equal for a heal and the partition it ends: "A|B" with each side's
// nodes sorted and, for a two-way cut, the smaller side first; "A>B" for
// a one-way cut.
func sidesKey(a Action) string {
	set := func(ns []string) string {
		s := slices.Clone(ns)
		slices.Sort(s)
		return strings.Join(slices.Compact(s), " ")
	}
	switch x := a.(type) {
	case Cut:
		return twoWay(set(x.A), set(x.B))
	case Heal:
		return twoWay(set(x.A), set(x.B))
	case CutOneWay:
		return set(x.A) + ">" + set(x.B)
	case HealOneWay:
		return set(x.A) + ">" + set(x.B)
	}
	return ""
}

// twoWay joins a two-way cut's sides in a fixed order.
func twoWay(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return a + "|" + b
}
