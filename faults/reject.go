package faults

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

func init() {
	register(kind{verb: "reject", rank: 100, parse: parseReject, example: "0s reject 6 p1>b1 NOT_LEADER_OR_FOLLOWER partition 1"})
}

// RejectErrors are the errors a [Reject] may name: Kafka's retriable
// errors after which the broker has appended nothing.
var RejectErrors = []string{"NOT_ENOUGH_REPLICAS", "NOT_LEADER_OR_FOLLOWER"}

// Reject is "reject N CLIENT>SERVER ERROR [partition K]": the broker
// answers the batches of the N-th request the client sends it (only
// partition K's batch, when given) with the error Code and appends none
// of them. It is the plan form of a broker's random transient error; it
// counts requests like a [Drop] and fires once.
type Reject struct {
	// N is the request's number on the link, >= 1.
	N int64
	// From is the client, To the broker.
	From, To string
	// Code is the error, an upper-case Kafka error name (one of
	// RejectErrors to pass [Reject.Check]).
	Code string
	// Part is the one partition rejected, or -1 for every batch of the
	// request.
	Part int32
}

func (Reject) Verb() string { return "reject" }

func (a Reject) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, a.N, 10)
	b = appendLink(b, a.From, a.To)
	b = append(b, ' ')
	b = append(b, a.Code...)
	if a.Part >= 0 {
		b = append(b, " partition "...)
		b = strconv.AppendInt(b, int64(a.Part), 10)
	}
	return b
}

func (a Reject) Nodes() []string     { return []string{a.From, a.To} }
func (a Reject) Apply(t Target)      { t.ArmReject(a.N, a.From, a.To, a.Code, a.Part) }
func (Reject) Span() Span            { return Instant }
func (Reject) Closes(Action) bool    { return false }
func (Reject) Weaken() (Knob, bool)  { return Knob{}, false }
func (a Reject) Equal(b Action) bool { c, ok := b.(Reject); return ok && a == c }

// Check checks that the link goes from a client to a broker and that the
// error is one of RejectErrors.
func (a Reject) Check(n Nodes) error {
	if !slices.Contains(n.Clients, a.From) || !slices.Contains(n.Brokers, a.To) {
		return fmt.Errorf("reject link %s>%s must go from a producer to a broker (%s)", a.From, a.To, strings.Join(n.Brokers, ", "))
	}
	if !slices.Contains(RejectErrors, a.Code) {
		return fmt.Errorf("reject error %q is not allowed (allowed: %s)", a.Code, strings.Join(RejectErrors, ", "))
	}
	return nil
}

// parseReject reads "N FROM > TO ERROR [partition K]".
func parseReject(args []string) (Action, error) {
	a := Reject{Part: -1}
	if (len(args) != 5 && len(args) != 7) || args[2] != ">" {
		return nil, fmt.Errorf("want \"reject N CLIENT>SERVER ERROR [partition K]\", e.g. 0s reject 5 p1>b1 NOT_ENOUGH_REPLICAS")
	}
	n, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("reject: request number %q is not allowed (allowed: an integer >= 1)", args[0])
	}
	a.N = n
	if a.From, a.To, err = parseLink("reject", args[1], args[3]); err != nil {
		return nil, err
	}
	code := args[4]
	ok := code != ""
	for i := 0; ok && i < len(code); i++ {
		c := code[i]
		ok = c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9'
	}
	if !ok {
		return nil, fmt.Errorf("reject: %q is not an error name (e.g. NOT_ENOUGH_REPLICAS)", code)
	}
	a.Code = code
	if len(args) == 7 {
		k, err := strconv.ParseInt(args[6], 10, 32)
		if args[5] != "partition" || err != nil || k < 0 {
			return nil, fmt.Errorf("reject: want \"partition K\" with K >= 0 after the error, got %q", strings.Join(args[5:], " "))
		}
		a.Part = int32(k)
	}
	return a, nil
}
