package faults

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

func init() {
	register(kind{verb: "reassign", rank: 200, parse: parseReassign, example: "10s reassign p0 b2,b3,b4"})
}

// Reassign is "reassign PARTITION BROKERS": an operator's partition
// reassignment (kafka-reassign-partitions.sh --execute, the
// AlterPartitionReassignments request) of partition PARTITION (p0) to the
// replicas BROKERS (b2,b3,b4, the preferred leader first). The controller
// adds the new replicas, which fetch from the leader and join the ISR
// once caught up; then the old ones leave, and a removed leader hands
// over to the first new replica in the ISR (KIP-455; docs/operations.md).
// Only a replicated world (one with a controller) reassigns.
type Reassign struct {
	Part     int32
	Replicas []string
}

func (Reassign) Verb() string { return "reassign" }

func (a Reassign) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	b = append(b, " p"...)
	b = strconv.AppendInt(b, int64(a.Part), 10)
	b = append(b, ' ')
	return append(b, strings.Join(a.Replicas, ",")...)
}

// Nodes: the brokers are checked as the world's nodes.
func (a Reassign) Nodes() []string { return a.Replicas }

// Check: a controller, a partition that exists, brokers only.
func (a Reassign) Check(n Nodes) error {
	if len(n.Controllers) == 0 {
		return fmt.Errorf("reassign: a reassignment needs the controller of a replicated world (allowed with brokers >= 2 and replication.factor >= 2)")
	}
	if a.Part >= n.Partitions {
		return fmt.Errorf("reassign: partition p%d does not exist (partitions: p0..p%d)", a.Part, n.Partitions-1)
	}
	if len(a.Replicas) == 0 {
		return fmt.Errorf("reassign p%d: no broker named (allowed: a comma list of brokers, e.g. b2,b3,b4)", a.Part)
	}
	for i, r := range a.Replicas {
		if slices.Contains(a.Replicas[:i], r) {
			return fmt.Errorf("reassign p%d: broker %s is listed twice", a.Part, r)
		}
		if !slices.Contains(n.Brokers, r) {
			return fmt.Errorf("reassign p%d: %s is not a broker (brokers: %s)", a.Part, r, strings.Join(n.Brokers, ", "))
		}
	}
	return nil
}

func (a Reassign) Apply(t Target)   { t.Reassign(a.Part, a.Replicas) }
func (Reassign) Span() Span         { return Instant }
func (Reassign) Closes(Action) bool { return false }
func (a Reassign) Equal(b Action) bool {
	c, ok := b.(Reassign)
	return ok && a.Part == c.Part && slices.Equal(a.Replicas, c.Replicas)
}

// Weaken reassigns to fewer replicas: the first v of the target, v from 1
// (fewer replicas to add and catch up).
func (a Reassign) Weaken() (Knob, bool) {
	return Knob{Min: 1, Max: int64(len(a.Replicas)), With: func(v int64) Action {
		return Reassign{Part: a.Part, Replicas: slices.Clone(a.Replicas[:v])}
	}}, len(a.Replicas) > 1
}

// parseReassign reads "PARTITION BROKERS".
func parseReassign(args []string) (Action, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("want \"reassign PARTITION BROKERS\", e.g. 10s reassign p0 b2,b3,b4")
	}
	if ps, err := parseParts(args[0], true); err == nil && len(ps) == 1 && internalName(ps[0]) != "" {
		// The model does not replicate the coordinators' logs: a
		// reassignment would have nothing to copy (docs/operations.md).
		return nil, fmt.Errorf("reassign: partition %q is not allowed (allowed: one partition, p0, p1, ...; the coordinators' internal partitions are not reassigned, elect-preferred moves them)", args[0])
	}
	ps, err := parseParts(args[0], false)
	if err != nil || len(ps) != 1 {
		return nil, fmt.Errorf("reassign: partition %q is not allowed (allowed: one partition, p0, p1, ...)", args[0])
	}
	var rs []string
	for f := range strings.SplitSeq(args[1], ",") {
		n, err := parseNode(f)
		if err != nil {
			return nil, fmt.Errorf("reassign: %v", err)
		}
		if slices.Contains(rs, n) {
			return nil, fmt.Errorf("reassign: broker %s is listed twice", n)
		}
		rs = append(rs, n)
	}
	return Reassign{Part: ps[0], Replicas: rs}, nil
}
