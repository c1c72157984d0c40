package faults

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

func init() {
	register(kind{verb: "delete-records", rank: 150, parse: parseDeleteRecords, example: "10s delete-records b1 partition 0 before 120"})
}

// DeleteRecords is "delete-records BROKER partition K before OFFSET": an
// operator's DeleteRecords (kafka-delete-records.sh, Admin.deleteRecords)
// sent to broker BROKER for partition K, which moves the partition's log
// start to OFFSET when the broker leads it and OFFSET is at most its high
// watermark (otherwise the broker answers NOT_LEADER_OR_FOLLOWER or
// OFFSET_OUT_OF_RANGE, in the trace, and nothing moves).
type DeleteRecords struct {
	Broker string
	// Part is the partition, 0..partitions-1.
	Part int32
	// Before is the new log start offset, >= 0: records below it go.
	Before int64
}

func (DeleteRecords) Verb() string { return "delete-records" }

func (a DeleteRecords) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	b = appendNode(b, a.Broker)
	b = append(b, " partition "...)
	b = strconv.AppendInt(b, int64(a.Part), 10)
	b = append(b, " before "...)
	return strconv.AppendInt(b, a.Before, 10)
}

func (a DeleteRecords) Nodes() []string     { return []string{a.Broker} }
func (a DeleteRecords) Apply(t Target)      { t.DeleteRecords(a.Broker, a.Part, a.Before) }
func (DeleteRecords) Span() Span            { return Instant }
func (DeleteRecords) Closes(Action) bool    { return false }
func (a DeleteRecords) Equal(b Action) bool { c, ok := b.(DeleteRecords); return ok && a == c }

// Weaken deletes fewer records: an offset from 0 (nothing deleted) up to
// Before.
func (a DeleteRecords) Weaken() (Knob, bool) {
	return Knob{Min: 0, Max: a.Before, With: func(v int64) Action { a.Before = v; return a }}, a.Before > 0
}

// Check checks that the node is a broker and the partition exists.
func (a DeleteRecords) Check(n Nodes) error {
	if !slices.Contains(n.Brokers, a.Broker) {
		return fmt.Errorf("delete-records: %s is not a broker (brokers: %s)", a.Broker, strings.Join(n.Brokers, ", "))
	}
	if a.Part >= n.Partitions {
		return fmt.Errorf("delete-records: partition %d does not exist (partitions: 0..%d)", a.Part, n.Partitions-1)
	}
	return nil
}

// parseDeleteRecords reads "BROKER partition K before OFFSET".
func parseDeleteRecords(args []string) (Action, error) {
	const want = "want \"delete-records BROKER partition K before OFFSET\", e.g. 10s delete-records b1 partition 0 before 120"
	if len(args) != 5 || args[1] != "partition" || args[3] != "before" {
		return nil, fmt.Errorf("%s", want)
	}
	var a DeleteRecords
	var err error
	if a.Broker, err = parseNode(args[0]); err != nil {
		return nil, fmt.Errorf("delete-records: %v", err)
	}
	k, err := strconv.ParseInt(args[2], 10, 32)
	if err != nil || k < 0 {
		return nil, fmt.Errorf("delete-records: partition %q is not allowed (allowed: an integer >= 0)", args[2])
	}
	off, err := strconv.ParseInt(args[4], 10, 64)
	if err != nil || off < 0 {
		return nil, fmt.Errorf("delete-records: offset %q is not allowed (allowed: an integer >= 0)", args[4])
	}
	a.Part, a.Before = int32(k), off
	return a, nil
}
