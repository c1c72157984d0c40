package faults

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

func init() {
	register(kind{verb: "elect-preferred", rank: 190, parse: parseElectPreferred, example: "10s elect-preferred p0,__transaction_state"})
}

// The coordinators' internal partitions in a partition list: the values
// of model.TxnStatePartition and model.OffsetsPartition, which the world
// hands the controller as they are.
const (
	// TxnStatePartition is the transaction coordinator's
	// __transaction_state partition.
	TxnStatePartition int32 = -2
	// OffsetsPartition is the group coordinator's __consumer_offsets
	// partition.
	OffsetsPartition int32 = -1
)

// internalName returns the topic name of internal partition p, "" for a
// data partition.
func internalName(p int32) string {
	switch p {
	case TxnStatePartition:
		return "__transaction_state"
	case OffsetsPartition:
		return "__consumer_offsets"
	}
	return ""
}

// ElectPreferred is "elect-preferred [PARTITIONS]": an operator's
// preferred-leader election (kafka-leader-election.sh --election-type
// PREFERRED, the ElectLeaders request) for the partitions listed (p0,p2),
// every partition without a list. The list may name the coordinators'
// internal partitions, __transaction_state (the transaction
// coordinator's) and __consumer_offsets (the group coordinator's), whose
// preferred leader is b1. The controller moves each partition's
// leadership back to its first replica when that replica is in the ISR
// (docs/operations.md), and a coordinator with it. Only a replicated
// world (one with a controller) elects leaders.
type ElectPreferred struct {
	// Parts are the partitions, in the order written; empty for all.
	// TxnStatePartition and OffsetsPartition stand for the internal ones.
	Parts []int32
}

func (ElectPreferred) Verb() string { return "elect-preferred" }

func (a ElectPreferred) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	if len(a.Parts) > 0 {
		b = append(b, ' ')
		b = appendParts(b, a.Parts)
	}
	return b
}

// appendParts appends partitions as "p0,p2", an internal one by its
// topic's name.
func appendParts(b []byte, parts []int32) []byte {
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		if name := internalName(p); name != "" {
			b = append(b, name...)
			continue
		}
		b = append(b, 'p')
		b = strconv.AppendInt(b, int64(p), 10)
	}
	return b
}

func (ElectPreferred) Nodes() []string { return nil }

// Check: a controller to elect, and partitions that exist.
func (a ElectPreferred) Check(n Nodes) error {
	if len(n.Controllers) == 0 {
		return fmt.Errorf("elect-preferred: a leader election needs the controller of a replicated world (allowed with brokers >= 2 and replication.factor >= 2)")
	}
	for _, p := range a.Parts {
		if p >= n.Partitions {
			return fmt.Errorf("elect-preferred: partition p%d does not exist (partitions: p0..p%d)", p, n.Partitions-1)
		}
	}
	return nil
}

func (a ElectPreferred) Apply(t Target)   { t.ElectPreferred(a.Parts) }
func (ElectPreferred) Span() Span         { return Instant }
func (ElectPreferred) Closes(Action) bool { return false }
func (a ElectPreferred) Equal(b Action) bool {
	c, ok := b.(ElectPreferred)
	return ok && slices.Equal(a.Parts, c.Parts)
}

// Weaken elects fewer of the partitions listed: the first v of them, v
// from 1 (an election of every partition has no knob).
func (a ElectPreferred) Weaken() (Knob, bool) {
	return Knob{Min: 1, Max: int64(len(a.Parts)), With: func(v int64) Action {
		return ElectPreferred{Parts: slices.Clone(a.Parts[:v])}
	}}, len(a.Parts) > 1
}

// parseElectPreferred reads "[PARTITIONS]".
func parseElectPreferred(args []string) (Action, error) {
	switch len(args) {
	case 0:
		return ElectPreferred{}, nil
	case 1:
		ps, err := parseParts(args[0], true)
		if err != nil {
			return nil, fmt.Errorf("elect-preferred: %v", err)
		}
		return ElectPreferred{Parts: ps}, nil
	}
	return nil, fmt.Errorf("want \"elect-preferred\" or \"elect-preferred PARTITIONS\", e.g. 10s elect-preferred p0,p2 or 10s elect-preferred __transaction_state")
}

// parseParts reads a comma list of partitions "p0,p2", none twice; with
// internal, __transaction_state and __consumer_offsets too.
func parseParts(s string, internal bool) ([]int32, error) {
	var out []int32
	allowed := "p0, p1, ..., comma-separated"
	if internal {
		allowed = "p0, p1, ..., __transaction_state, __consumer_offsets, comma-separated"
	}
	for f := range strings.SplitSeq(s, ",") {
		k, err := strconv.ParseInt(strings.TrimPrefix(f, "p"), 10, 32)
		switch {
		case internal && f == internalName(TxnStatePartition):
			k, err = int64(TxnStatePartition), nil
		case internal && f == internalName(OffsetsPartition):
			k, err = int64(OffsetsPartition), nil
		case !strings.HasPrefix(f, "p") || err != nil || k < 0:
			return nil, fmt.Errorf("partition %q is not allowed (allowed: %s)", f, allowed)
		}
		if slices.Contains(out, int32(k)) {
			return nil, fmt.Errorf("partition %s is listed twice", f)
		}
		out = append(out, int32(k))
	}
	return out, nil
}
